package io.spinagent.agent.cluster;

import io.kubernetes.client.util.KubeConfig;
import io.spinagent.agent.config.KubernetesAccountConfig;
import io.spinagent.agent.config.yaml.BoundedFiles;
import io.spinagent.agent.config.yaml.BoundedYaml;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads an account's kubeconfig (its file or its contents) and selects its context, so that a
 * kubeconfig that cannot work is refused with the reason before anything connects. The file is read
 * with a size cap and parsed with aliases bounded ({@link BoundedYaml}), where the client's own
 * {@code KubeConfig.loadKubeConfig} would read and expand anything; the files the context names are
 * read and checked too ({@link KubeconfigFiles}).
 */
public final class Kubeconfigs {

  /** A kubeconfig, or a certificate or key file it names: larger is the wrong file. */
  static final long MAX_BYTES = 1L << 20;

  private Kubeconfigs() {}

  /** A kubeconfig that cannot be used; the message says why. */
  static final class InvalidKubeconfigException extends IOException {

    private static final long serialVersionUID = 1L;

    /** Whether the message names the kubeconfig file itself (it could not be read at all). */
    private final boolean namesFile;

    InvalidKubeconfigException(String message, Throwable cause) {
      this(message, false, cause);
    }

    InvalidKubeconfigException(String message, boolean namesFile, Throwable cause) {
      super(message, cause);
      this.namesFile = namesFile;
    }

    /** The message, after where the kubeconfig came from unless it says so already. */
    String describe(KubernetesAccountConfig account) {
      if (namesFile) {
        return getMessage();
      }
      return account
              .kubeconfigFile()
              .map(file -> "kubeconfig " + file)
              .orElse("kubeconfig contents")
          + ": "
          + getMessage();
    }
  }

  /**
   * What the agent finds wrong with an account's kubeconfig when it starts the account, found
   * without connecting: {@code --check} reports it. Accounts using the pod's service account name
   * no file and have nothing to check.
   */
  public static Optional<String> problem(KubernetesAccountConfig account) {
    if (account.serviceAccount()) {
      return Optional.empty();
    }
    try {
      load(account);
      return Optional.empty();
    } catch (InvalidKubeconfigException e) {
      return Optional.of(e.describe(account));
    }
  }

  /**
   * The kubeconfig of an account that does not use the pod's service account, with the account's
   * context (or the kubeconfig's current one) selected and naming a server, and the files it names
   * read into it.
   */
  static KubeConfig load(KubernetesAccountConfig account) throws InvalidKubeconfigException {
    KubeConfig kubeConfig;
    Path baseDir = null;
    if (account.kubeconfigContents().isPresent()) {
      String contents = account.kubeconfigContents().get();
      if (contents.length() > MAX_BYTES) {
        throw new InvalidKubeconfigException(
            "is longer than 1Mi, the limit for a kubeconfig", null);
      }
      kubeConfig = parse(contents);
    } else {
      Path file =
          account
              .kubeconfigFile()
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "account '" + account.name() + "' has no kubeconfig"));
      if (Files.exists(file) && !Files.isRegularFile(file)) {
        // A pipe would block whoever reads it until something writes to it.
        throw new InvalidKubeconfigException(file + " is not a regular file", true, null);
      }
      String text;
      try {
        text = BoundedFiles.readUtf8(file, MAX_BYTES, "a kubeconfig");
      } catch (BoundedFiles.UnreadableFileException e) {
        throw new InvalidKubeconfigException(
            e.getCause() instanceof NoSuchFileException
                ? "file " + file + " does not exist"
                : "cannot read " + file + ": it " + e.reason(),
            true,
            e);
      }
      kubeConfig = parse(text);
      kubeConfig.setFile(file.toAbsolutePath().toFile());
      baseDir = file.toAbsolutePath().getParent();
    }
    select(kubeConfig, account.context());
    KubeconfigFiles.inline(kubeConfig, baseDir);
    return kubeConfig;
  }

  /** The kubeconfig in {@code text}, read as the client's {@code loadKubeConfig} reads it. */
  @SuppressWarnings("unchecked")
  private static KubeConfig parse(String text) throws InvalidKubeconfigException {
    KubeConfig kubeConfig;
    try {
      Object document = BoundedYaml.load(new StringReader(text), new LoaderOptions());
      if (document != null && !(document instanceof Map<?, ?>)) {
        throw new ClassCastException("not a map");
      }
      Map<String, Object> root = document == null ? Map.of() : (Map<String, Object>) document;
      kubeConfig =
          new KubeConfig(
              (ArrayList<Object>) root.get("contexts"),
              (ArrayList<Object>) root.get("clusters"),
              (ArrayList<Object>) root.get("users"));
      kubeConfig.setContext((String) root.get("current-context"));
      kubeConfig.setPreferences(root.get("preferences"));
    } catch (RuntimeException e) {
      // The parser fails with whatever the YAML library or a cast threw; say it plainly.
      throw new InvalidKubeconfigException("is not a kubeconfig: " + reason(e), e);
    }
    if (kubeConfig.getContexts() == null || kubeConfig.getContexts().isEmpty()) {
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
