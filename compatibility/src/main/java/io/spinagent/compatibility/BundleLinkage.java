package io.spinagent.compatibility;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The plugin bundle on one Spinnaker line's class path, as Clouddriver would load it: the host
 * layer its own chooser picks there, and what of the bundle's code would not link. The product's
 * classes, SpinAgent's own jars and the chosen layer are checked; the other layers are not (they
 * never run on that line), nor are the third-party libraries the bundle carries (they run the same
 * on every line: none of them is one Clouddriver provides).
 *
 * @param layer the host layer the plugin chooses on the line, or the refusal it logs
 * @param problems what would not link
 */
public record BundleLinkage(String layer, Set<LinkageChecker.Problem> problems) {

  private static final String LAYER_JAR_PREFIX = "spinagent-host-";
  private static final String OWN_JAR_PREFIX = "spinagent-";

  /** Checks {@code bundle} (the release zip) on {@code lineClassPath}. */
  public static BundleLinkage check(Path bundle, List<Path> lineClassPath) {
    Path extracted = null;
    try {
      extracted = Files.createTempDirectory("spinagent-linkage");
      Path plugin = extracted.resolve("clouddriver");
      unzipInner(bundle, plugin);
      Path classes = plugin.resolve("classes");
      List<Path> lib;
      try (Stream<Path> jars = Files.list(plugin.resolve("lib"))) {
        lib = jars.filter(jar -> jar.toString().endsWith(".jar")).sorted().toList();
      }
      String chosen = chosenLayer(classes, lib, lineClassPath);
      List<Path> subjects = new ArrayList<>(List.of(classes));
      for (Path jar : lib) {
        String name = jar.getFileName().toString();
        boolean ours = name.startsWith(OWN_JAR_PREFIX);
        boolean otherLayer =
            name.startsWith(LAYER_JAR_PREFIX)
                && !name.startsWith("spinagent-host-api-")
                && !name.startsWith(LAYER_JAR_PREFIX + chosen + "-");
        if (ours && !otherLayer) {
          subjects.add(jar);
        }
      }
      List<Path> world = new ArrayList<>(subjects);
      world.addAll(lib);
      world.addAll(lineClassPath);
      return new BundleLinkage(chosen, LinkageChecker.check(subjects, world));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot check " + bundle, e);
    } finally {
      if (extracted != null) {
        deleteTree(extracted);
      }
    }
  }

  /**
   * The layer the plugin's own chooser ({@code io.spinagent.host.HostLayers}, run from the bundle
   * over a class loader holding the line's libraries) picks, or "refused: …".
   */
  static String chosenLayer(Path classes, List<Path> lib, List<Path> lineClassPath) {
    try (URLClassLoader host = new URLClassLoader(urls(lineClassPath), null);
        URLClassLoader plugin = new URLClassLoader(urls(concat(classes, lib)), host)) {
      Class<?> libraries = plugin.loadClass("io.spinagent.host.HostLibraries");
      Object found = libraries.getMethod("of", ClassLoader.class).invoke(null, host);
      Object choice =
          plugin
              .loadClass("io.spinagent.host.HostLayers")
              .getMethod("choose", libraries, ClassLoader.class, String.class)
              .invoke(null, found, plugin, "SpinAgent");
      if (choice.getClass().getSimpleName().equals("Refused")) {
        return "refused: " + choice.getClass().getMethod("message").invoke(choice);
      }
      Object layer = choice.getClass().getMethod("layer").invoke(choice);
      return (String) layer.getClass().getMethod("name").invoke(layer);
    } catch (ReflectiveOperationException e) {
      Throwable cause = e instanceof InvocationTargetException target ? target.getCause() : e;
      throw new IllegalStateException("the bundle's layer chooser failed: " + cause, cause);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> concat(Path first, List<Path> rest) {
    List<Path> all = new ArrayList<>(List.of(first));
    all.addAll(rest);
    return all;
  }

  private static URL[] urls(List<Path> paths) {
    List<URL> urls = new ArrayList<>();
    for (Path path : paths) {
      try {
        urls.add(path.toUri().toURL());
      } catch (MalformedURLException e) {
        throw new IllegalArgumentException(path.toString(), e);
      }
    }
    return urls.toArray(new URL[0]);
  }

  /** Extracts the {@code clouddriver.zip} inside {@code bundle} into {@code target}. */
  private static void unzipInner(Path bundle, Path target) throws IOException {
    try (ZipInputStream outer = new ZipInputStream(Files.newInputStream(bundle))) {
      for (ZipEntry entry = outer.getNextEntry(); entry != null; entry = outer.getNextEntry()) {
        if (entry.getName().equals("clouddriver.zip")) {
          unzip(new ZipInputStream(outer), target);
          return;
        }
      }
    }
    throw new IOException(bundle + " holds no clouddriver.zip");
  }

  private static void unzip(ZipInputStream zip, Path target) throws IOException {
    for (ZipEntry entry = zip.getNextEntry(); entry != null; entry = zip.getNextEntry()) {
      Path file = target.resolve(entry.getName()).normalize();
      if (!file.startsWith(target)) {
        throw new IOException("entry outside the bundle: " + entry.getName());
      }
      if (entry.isDirectory()) {
        Files.createDirectories(file);
      } else {
        Files.createDirectories(file.getParent());
        copy(zip, file);
      }
    }
  }

  private static void copy(InputStream in, Path file) throws IOException {
    Files.write(file, in.readAllBytes());
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted((a, b) -> b.compareTo(a)).forEach(BundleLinkage::deleteQuietly);
    } catch (IOException e) {
      // A leftover temporary directory is all that is lost.
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // As above.
    }
  }
}
