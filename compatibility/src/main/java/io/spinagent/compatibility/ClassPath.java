package io.spinagent.compatibility;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.FieldVisitor;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

/**
 * The classes a JVM would see: jars and class directories in order (the first holder of a name
 * wins, as with a class loader), then the running JDK's own classes. Each class is read once, and
 * only as far as linking needs: its supertypes and its members' names and descriptors.
 */
final class ClassPath implements AutoCloseable {

  /** What linking needs of a class. */
  record ClassShape(
      String name,
      String superName,
      List<String> interfaces,
      boolean isInterface,
      Set<String> fields,
      Set<String> methods) {}

  private final Map<String, Path> directoryByClass = new HashMap<>();
  private final Map<String, ZipFile> jarByClass = new HashMap<>();
  private final List<ZipFile> jars = new ArrayList<>();
  private final Map<String, Optional<ClassShape>> shapes = new HashMap<>();

  ClassPath(List<Path> entries) {
    for (Path entry : entries) {
      if (Files.isDirectory(entry)) {
        forEachClassName(entry, name -> index(name, entry, null));
      } else if (Files.isRegularFile(entry) && entry.toString().endsWith(".jar")) {
        try {
          ZipFile jar = new ZipFile(entry.toFile());
          jars.add(jar);
          jar.stream()
              .map(ZipEntry::getName)
              .filter(ClassPath::isClassFile)
              .forEach(name -> index(name.substring(0, name.length() - 6), null, jar));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read " + entry, e);
        }
      }
    }
  }

  /** Indexes the first holder of each name only, as a class loader would find it. */
  private void index(String name, Path directory, ZipFile jar) {
    if (directoryByClass.containsKey(name) || jarByClass.containsKey(name)) {
      return;
    }
    if (directory != null) {
      directoryByClass.put(name, directory);
    } else {
      jarByClass.put(name, jar);
    }
  }

  private static boolean isClassFile(String name) {
    return name.endsWith(".class") && !name.startsWith("META-INF/");
  }

  private static void forEachClassName(Path directory, Consumer<String> action) {
    try (Stream<Path> files = Files.walk(directory)) {
      files
          .map(file -> directory.relativize(file).toString().replace('\\', '/'))
          .filter(ClassPath::isClassFile)
          .forEach(name -> action.accept(name.substring(0, name.length() - 6)));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + directory, e);
    }
  }

  /** The class named {@code internalName} ({@code java/lang/String}), if this path has it. */
  Optional<ClassShape> find(String internalName) {
    return shapes.computeIfAbsent(internalName, this::read);
  }

  private Optional<ClassShape> read(String internalName) {
    try (InputStream in = open(internalName)) {
      return in == null ? Optional.empty() : Optional.of(shapeOf(in.readAllBytes()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read class " + internalName, e);
    }
  }

  private InputStream open(String internalName) throws IOException {
    String file = internalName + ".class";
    Path directory = directoryByClass.get(internalName);
    if (directory != null) {
      return Files.newInputStream(directory.resolve(file));
    }
    ZipFile jar = jarByClass.get(internalName);
    if (jar != null) {
      return jar.getInputStream(jar.getEntry(file));
    }
    return ClassLoader.getPlatformClassLoader().getResourceAsStream(file);
  }

  /** Hands each class in {@code entry} (a jar or a class directory) to {@code action}, by name. */
  static void forEachClass(Path entry, BiConsumer<String, byte[]> action) {
    try {
      if (Files.isDirectory(entry)) {
        List<Path> classes;
        try (Stream<Path> files = Files.walk(entry)) {
          classes = files.filter(file -> file.toString().endsWith(".class")).sorted().toList();
        }
        for (Path file : classes) {
          String name = entry.relativize(file).toString().replace('\\', '/');
          if (isClassFile(name)) {
            action.accept(name.substring(0, name.length() - 6), Files.readAllBytes(file));
          }
        }
        return;
      }
      try (ZipFile jar = new ZipFile(entry.toFile())) {
        List<? extends ZipEntry> classes =
            jar.stream()
                .filter(e -> isClassFile(e.getName()))
                .sorted(Comparator.comparing(ZipEntry::getName))
                .toList();
        for (ZipEntry e : classes) {
          try (InputStream in = jar.getInputStream(e)) {
            action.accept(e.getName().substring(0, e.getName().length() - 6), in.readAllBytes());
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + entry, e);
    }
  }

  static ClassShape shapeOf(byte[] bytes) {
    ClassReader reader = new ClassReader(bytes);
    Set<String> fields = new HashSet<>();
    Set<String> methods = new HashSet<>();
    String[] header = new String[2];
    boolean[] isInterface = new boolean[1];
    List<String> interfaces = new ArrayList<>();
    reader.accept(
        new ClassVisitor(Opcodes.ASM9) {
          @Override
          public void visit(
              int version,
              int access,
              String name,
              String signature,
              String superName,
              String[] implemented) {
            header[0] = name;
            header[1] = superName;
            interfaces.addAll(List.of(implemented == null ? new String[0] : implemented));
            isInterface[0] = (access & Opcodes.ACC_INTERFACE) != 0;
          }

          @Override
          public FieldVisitor visitField(
              int access, String name, String descriptor, String signature, Object value) {
            fields.add(name + ":" + descriptor);
            return null;
          }

          @Override
          public MethodVisitor visitMethod(
              int access, String name, String descriptor, String signature, String[] exceptions) {
            methods.add(name + descriptor);
            return null;
          }
        },
        ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    return new ClassShape(
        header[0], header[1], List.copyOf(interfaces), isInterface[0], fields, methods);
  }

  @Override
  public void close() {
    for (ZipFile jar : jars) {
      try {
        jar.close();
      } catch (IOException e) {
        // Read-only; nothing is lost when closing fails.
      }
    }
  }
}
