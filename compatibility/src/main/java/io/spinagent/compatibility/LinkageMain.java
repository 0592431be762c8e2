package io.spinagent.compatibility;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Checks a plugin bundle against a Clouddriver class path by hand, e.g. a real Clouddriver's:
 *
 * <pre>java -cp compatibility/target/classes:&lt;asm jar&gt; io.spinagent.compatibility.LinkageMain
 *     BUNDLE.zip CLASSPATH_FILE</pre>
 *
 * where {@code CLASSPATH_FILE} holds the class path ({@code :}-separated, as Maven's {@code
 * dependency:build-classpath} writes it). Prints the host layer the plugin chooses there and what
 * would not link; exits with 1 when something would not.
 */
public final class LinkageMain {

  private LinkageMain() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: LinkageMain BUNDLE.zip CLASSPATH_FILE");
      System.exit(2);
    }
    BundleLinkage linkage =
        BundleLinkage.check(Path.of(args[0]), classPath(Files.readString(Path.of(args[1]))));
    System.out.println("host layer: " + linkage.layer());
    linkage.problems().forEach(System.out::println);
    System.out.println(linkage.problems().size() + " problem(s)");
    System.exit(linkage.problems().isEmpty() ? 0 : 1);
  }

  /** A {@code :}-separated class path as paths. */
  public static List<Path> classPath(String text) {
    return Arrays.stream(text.trim().split(java.io.File.pathSeparator, 0))
        .filter(entry -> !entry.isBlank())
        .map(Path::of)
        .toList();
  }
}
