package io.spinagent.agent.cluster;

import io.kubernetes.client.util.KubeConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads an account's kubeconfig (its file or its contents) and selects its context, so that a
 * kubeconfig that cannot work is refused with the reason before anything connects.
 */
final class Kubeconfigs {

  private Kubeconfigs() {}

  /** A kubeconfig that cannot be used; the message says why, without naming where it came from. */
  static final class InvalidKubeconfigException extends IOException {
    InvalidKubeconfigException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The kubeconfig of an account that does not use the pod's service account, with the account's
   * context (or the kubeconfig's current one) selected and naming a server.
   */
  static KubeConfig load(KubernetesAccountConfig account) throws InvalidKubeconfigException {
    KubeConfig kubeConfig;
    if (account.kubeconfigContents().isPresent()) {
      kubeConfig = parse(new StringReader(account.kubeconfigContents().get()));
    } else {
      Path file =
          account
              .kubeconfigFile()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "account '" + account.name() + "' has no kubeconfig"));
      if (Files.exists(file) && !Files.isRegularFile(file)) {
        // A pipe or device would block or never end, and with it whoever reads it.
        throw new InvalidKubeconfigException(file + " is not a regular file", null);
      }
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        kubeConfig = parse(reader);
      } catch (InvalidKubeconfigException e) {
        throw e;
      } catch (NoSuchFileException e) {
        throw new InvalidKubeconfigException("file " + file + " does not exist", e);
      } catch (IOException e) {
        throw new InvalidKubeconfigException("cannot read " + file + ": " + e, e);
      }
      kubeConfig.setFile(file.toAbsolutePath().toFile());
    }
    select(kubeConfig, account.context());
    return kubeConfig;
  }

  private static KubeConfig parse(Reader reader) throws InvalidKubeconfigException {
    KubeConfig kubeConfig;
    try {
      kubeConfig = KubeConfig.loadKubeConfig(reader);
    } catch (RuntimeException e) {
      // The client's parser fails with whatever the YAML library or a cast threw; say it plainly.
      throw new InvalidKubeconfigException("is not a kubeconfig: " + reason(e), e);
    }
    if (kubeConfig == null
        || kubeConfig.getContexts() == null
        || kubeConfig.getContexts().isEmpty()) {
      throw new InvalidKubeconfigException("is not a kubeconfig: it has no contexts", null);
    }
    return kubeConfig;
  }

  private static void select(KubeConfig kubeConfig, Optional<String> context)
      throws InvalidKubeconfigException {
    try {
      if (context.isPresent()) {
        if (!kubeConfig.setContext(context.get())) {
          throw new InvalidKubeconfigException(
              "no context named '" + context.get() + "' (it has " + contextNames(kubeConfig) + ")",
              null);
        }
      } else if (kubeConfig.getCurrentContext() == null
          || kubeConfig.getCurrentContext().isBlank()) {
        throw new InvalidKubeconfigException(
            "has no current-context; name one of "
                + contextNames(kubeConfig)
                + " as the account's context",
            null);
      }
      if (kubeConfig.getServer() == null || kubeConfig.getServer().isBlank()) {
        throw new InvalidKubeconfigException(
            "context '" + kubeConfig.getCurrentContext() + "' names no cluster with a server",
            null);
      }
    } catch (RuntimeException e) {
      // A context or cluster entry of the wrong shape (a list where a map belongs, ...).
      throw new InvalidKubeconfigException("is not a kubeconfig: " + reason(e), e);
    }
  }

  private static List<String> contextNames(KubeConfig kubeConfig) {
    return kubeConfig.getContexts().stream()
        .map(
            c -> c instanceof Map<?, ?> map ? Objects.toString(map.get("name")) : String.valueOf(c))
        .toList();
  }

  /**
   * The YAML parser's messages quote the offending source line, which may hold a token: only the
   * problem and its position are kept.
   */
  private static String reason(Exception e) {
    if (e instanceof ClassCastException) {
      return "an entry has the wrong type (e.g. a list or a string where a kubeconfig has a map)";
    }
    if (e instanceof MarkedYAMLException yaml && yaml.getProblemMark() != null) {
      return yaml.getProblem()
          + " at line "
          + (yaml.getProblemMark().getLine() + 1)
          + ", column "
          + (yaml.getProblemMark().getColumn() + 1);
    }
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
