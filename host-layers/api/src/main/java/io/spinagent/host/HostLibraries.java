package io.spinagent.host;

import java.net.URL;
import java.security.CodeSource;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the Clouddriver that loads the plugin runs on, as far as a host layer cares: which servlet
 * API it serves requests with, and the versions of Spring Boot and jOOQ (whose APIs change between
 * Spinnaker lines), plus Clouddriver's own version for the log. Read from the host's class loader
 * when the plugin starts; a version that cannot be read is empty.
 *
 * @param servlet the servlet API on the host's class path
 * @param springBoot Spring Boot's version
 * @param jooq jOOQ's version
 * @param pf4j PF4J's version (for the log: the plugin framework has loaded the plugin by then)
 * @param clouddriver Clouddriver's version, from its web module's jar; empty in a stand-in
 */
public record HostLibraries(
    Servlet servlet,
    Optional<Version> springBoot,
    Optional<Version> jooq,
    Optional<Version> pf4j,
    Optional<Version> clouddriver) {

  /** The servlet API a host serves requests with. */
  public enum Servlet {
    /** {@code javax.servlet}: Spring Boot 2, Spinnaker 1.36 to 2025.3. */
    JAVAX,
    /** {@code jakarta.servlet}: Spring Boot 3, Spinnaker 2025.4 and later. */
    JAKARTA,
    /** Neither: not a web application. */
    NONE
  }

  /** Reads what {@code host} (Clouddriver's class loader) offers. */
  public static HostLibraries of(ClassLoader host) {
    Servlet servlet =
        present("jakarta.servlet.Filter", host)
            ? Servlet.JAKARTA
            : present("javax.servlet.Filter", host) ? Servlet.JAVAX : Servlet.NONE;
    return new HostLibraries(
        servlet,
        versionOf("org.springframework.boot.SpringBootVersion", "spring-boot", host),
        versionOf("org.jooq.DSLContext", "jooq", host),
        versionOf("org.pf4j.PluginManager", "pf4j", host),
        versionOf("com.netflix.spinnaker.clouddriver.Main", "clouddriver-web", host));
  }

  /** One line for logs: "Clouddriver 2026.2.3 on Spring Boot 3.5.16 (jakarta servlet), …". */
  public String describe() {
    return "Clouddriver "
        + clouddriver.map(Version::toString).orElse("(version unknown)")
        + " on Spring Boot "
        + springBoot.map(Version::toString).orElse("(version unknown)")
        + " ("
        + switch (servlet) {
          case JAVAX -> "javax servlet";
          case JAKARTA -> "jakarta servlet";
          case NONE -> "no servlet API";
        }
        + "), jOOQ "
        + jooq.map(Version::toString).orElse("(none)")
        + ", PF4J "
        + pf4j.map(Version::toString).orElse("(version unknown)");
  }

  private static boolean present(String className, ClassLoader loader) {
    try {
      Class.forName(className, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static final Pattern JAR_VERSION =
      Pattern.compile("-(\\d+\\.\\d+(?:\\.\\d+)?)(?:[-.][^/]*)?\\.jar$");

  /**
   * The version of the jar holding {@code className}: its manifest's Implementation-Version, else
   * the version in the jar's file name ({@code jooq-3.19.35.jar}), which Spinnaker's images keep.
   */
  static Optional<Version> versionOf(String className, String artifact, ClassLoader loader) {
    Class<?> type;
    try {
      type = Class.forName(className, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return Optional.empty();
    }
    Package pkg = type.getPackage();
    Optional<Version> declared =
        Optional.ofNullable(pkg == null ? null : pkg.getImplementationVersion())
            .flatMap(Version::parse);
    if (declared.isPresent()) {
      return declared;
    }
    CodeSource source = type.getProtectionDomain().getCodeSource();
    URL location = source == null ? null : source.getLocation();
    if (location == null) {
      return Optional.empty();
    }
    String path = location.getPath();
    String file = path.substring(path.lastIndexOf('/') + 1);
    if (!file.startsWith(artifact + "-")) {
      return Optional.empty();
    }
    Matcher matcher = JAR_VERSION.matcher(file.substring(artifact.length()));
    return matcher.find() ? Version.parse(matcher.group(1)) : Optional.empty();
  }
}
