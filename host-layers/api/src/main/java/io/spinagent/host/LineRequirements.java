package io.spinagent.host;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a host layer needs of Clouddriver's libraries: the servlet API it was compiled against, and
 * the Spring Boot and jOOQ releases it was checked against (from inclusive, until exclusive). A
 * version the host does not reveal is not held against it: the servlet API decides then.
 *
 * @param servlet the servlet API
 * @param springBootFrom the oldest Spring Boot
 * @param springBootUntil the first Spring Boot too new
 * @param jooqFrom the oldest jOOQ
 * @param jooqUntil the first jOOQ too new
 */
public record LineRequirements(
    HostLibraries.Servlet servlet,
    Version springBootFrom,
    Version springBootUntil,
    Version jooqFrom,
    Version jooqUntil) {

  /** What {@code host} lacks, in a few words, or empty when it meets every requirement. */
  public Optional<String> mismatch(HostLibraries host) {
    List<String> problems = new ArrayList<>();
    if (host.servlet() != servlet) {
      problems.add(
          "needs the "
              + servlet.name().toLowerCase(Locale.ROOT)
              + " servlet API, found "
              + (host.servlet() == HostLibraries.Servlet.NONE
                  ? "none"
                  : host.servlet().name().toLowerCase(Locale.ROOT)));
    }
    host.springBoot()
        .filter(version -> !version.within(springBootFrom, springBootUntil))
        .ifPresent(
            version ->
                problems.add(
                    "needs Spring Boot "
                        + springBootFrom
                        + " or later, before "
                        + springBootUntil
                        + ", found "
                        + version));
    host.jooq()
        .filter(version -> !version.within(jooqFrom, jooqUntil))
        .ifPresent(
            version ->
                problems.add(
                    "needs jOOQ "
                        + jooqFrom
                        + " or later, before "
                        + jooqUntil
                        + ", found "
                        + version));
    return problems.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", problems));
  }
}
