package io.spinagent.agent.config.binding;

import io.spinagent.agent.config.yaml.BoundedFiles;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Secret references in configuration values, in Spinnaker's syntax ({@code
 * encrypted:<engine>!<param>:<value>!...}) that Armory Scale Agent users write. The agent has no
 * secret service of its own, so it reads two engines, both from what a pod is given:
 *
 * <ul>
 *   <li>{@code env}: {@code encrypted:env!n:<VARIABLE>}, the value of an environment variable (e.g.
 *       set from a Secret with {@code secretKeyRef});
 *   <li>{@code file}: {@code encrypted:file!f:<path>}, the content of a file (e.g. a mounted
 *       Secret), for settings that take a value; {@code encryptedFile:file!f:<path>}, the file
 *       itself, for settings that take a file.
 * </ul>
 *
 * <p>References to engines that need a secret service (Spinnaker's and Armory's {@code vault},
 * {@code s3}, {@code gcs}, {@code secrets-manager}, {@code k8s}, ...) are refused, naming the key
 * and how to hand the agent the same secret. Resolved values never appear in messages.
 */
final class SecretReferences {

  static final String VALUE_PREFIX = "encrypted:";
  static final String FILE_PREFIX = "encryptedFile:";

  /** A secret value is a token or a password: anything larger is the wrong file. */
  static final long MAX_VALUE_BYTES = 1L << 20;

  private final Function<String, String> environment;
  private final boolean resolve;

  /**
   * @param environment looks up environment variables ({@code System::getenv} in the agent)
   * @param resolve false to check references without reading them (the converter keeps them as
   *     written, and may run where the secrets are not)
   */
  SecretReferences(Function<String, String> environment, boolean resolve) {
    this.environment = environment;
    this.resolve = resolve;
  }

  static boolean isReference(String text) {
    return text.startsWith(VALUE_PREFIX) || text.startsWith(FILE_PREFIX);
  }

  /** Thrown with a message that names what is wrong and what to write instead. */
  static final class ReferenceException extends Exception {
    ReferenceException(String message) {
      super(message);
    }
  }

  /**
   * The value a reference stands for, for a setting that takes a value.
   *
   * @param baseDir where a relative {@code f:} path is resolved (the configuration file's
   *     directory)
   */
  String value(String text, Path baseDir) throws ReferenceException {
    if (text.startsWith(FILE_PREFIX)) {
      throw new ReferenceException(
          "takes a value, not a file: write "
              + VALUE_PREFIX
              + text.substring(FILE_PREFIX.length())
              + " to use the content of the secret");
    }
    Reference reference = parse(text, VALUE_PREFIX);
    String value =
        switch (reference.engine) {
          case "env" -> environmentVariable(reference);
          case "file" -> fileContent(reference, baseDir);
          default -> throw unsupported(reference);
        };
    // Checked only: the reference stands for itself.
    return resolve ? value : text;
  }

  /**
   * The file a reference stands for, for a setting that takes a file (a path, relative ones
   * resolved by the caller like any other path).
   */
  String file(String text) throws ReferenceException {
    if (text.startsWith(VALUE_PREFIX)) {
      throw new ReferenceException(
          "takes a file, not a value: write "
              + FILE_PREFIX
              + "file!f:<path> to use a file (such as a mounted Secret)");
    }
    Reference reference = parse(text, FILE_PREFIX);
    return switch (reference.engine) {
      case "file" -> reference.required("f", "the file's path");
      case "env" ->
          throw new ReferenceException(
              "'"
                  + FILE_PREFIX
                  + "env!...' is not supported: an environment variable is a value, not a file;"
                  + " mount the secret as a file and write "
                  + FILE_PREFIX
                  + "file!f:<path>");
      default -> throw unsupported(reference);
    };
  }

  private String environmentVariable(Reference reference) throws ReferenceException {
    String name = reference.required("n", "the variable's name");
    if (!resolve) {
      return null;
    }
    String value = environment.apply(name);
    if (value == null || value.isEmpty()) {
      throw new ReferenceException(
          "refers to the environment variable "
              + name
              + ", which is "
              + (value == null ? "not set" : "empty"));
    }
    return value;
  }

  private String fileContent(Reference reference, Path baseDir) throws ReferenceException {
    String written = reference.required("f", "the file's path");
    if (!resolve) {
      return null;
    }
    Path file;
    try {
      file = baseDir.resolve(written);
    } catch (InvalidPathException e) {
      throw new ReferenceException("refers to '" + written + "', which is not a file path");
    }
    String value;
    try {
      // A mounted Secret or an `echo` ends with a newline that is not part of the secret.
      value = BoundedFiles.readUtf8(file, MAX_VALUE_BYTES, "a secret value").strip();
    } catch (BoundedFiles.UnreadableFileException e) {
      throw new ReferenceException("refers to " + file + ", which " + e.reason());
    }
    if (value.isEmpty()) {
      throw new ReferenceException("refers to " + file + ", which is empty");
    }
    return value;
  }

  private static ReferenceException unsupported(Reference reference) {
    String engine = reference.engine;
    String instead =
        " To hand the agent the same secret, mount it as a file and write encrypted:file!f:<path>"
            + " (a value) or encryptedFile:file!f:<path> (a file setting such as kubeconfigFile),"
            + " or put it in an environment variable and write encrypted:env!n:<VARIABLE>.";
    return switch (engine) {
      case "vault" ->
          new ReferenceException(
              "uses the secret engine 'vault', which the SpinAgent agent does not have (it has no"
                  + " Vault client). Have Vault write the secret to a file, e.g. with the Vault"
                  + " Agent injector as Armory's Vault guide does, and refer to that file."
                  + instead);
      case "k8s" ->
          new ReferenceException(
              "uses the secret engine 'k8s', which the SpinAgent agent does not have: mount the"
                  + " Secret"
                  + reference
                      .params
                      .getOrDefault("n", "")
                      .transform(n -> n.isEmpty() ? "" : " " + n)
                  + " into the agent's pod (a volume, or an environment variable from"
                  + " secretKeyRef) and refer to it there."
                  + instead);
      case "s3", "gcs", "secrets-manager", "gcp-secrets-manager", "cloud-secret" ->
          new ReferenceException(
              "uses the secret engine '"
                  + engine
                  + "', which the SpinAgent agent does not have: it reads only env and file."
                  + instead);
      default ->
          new ReferenceException(
              "uses the secret engine '"
                  + engine
                  + "', which is not one the agent knows: it reads only env and file."
                  + instead);
    };
  }

  /**
   * @param prefix {@link #VALUE_PREFIX} or {@link #FILE_PREFIX}, which {@code text} starts with
   */
  private static Reference parse(String text, String prefix) throws ReferenceException {
    String[] parts = text.substring(prefix.length()).split("!", -1);
    String engine = parts[0].trim().toLowerCase(Locale.ROOT);
    if (engine.isEmpty()) {
      throw new ReferenceException(
          "is a secret reference without an engine: write e.g. "
              + prefix
              + "file!f:<path> or encrypted:env!n:<VARIABLE>");
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (int i = 1; i < parts.length; i++) {
      int colon = parts[i].indexOf(':');
      if (colon <= 0) {
        throw new ReferenceException(
            "is not a valid secret reference: '"
                + parts[i]
                + "' should be <parameter>:<value>, as in "
                + prefix
                + engine
                + "!f:<path>");
      }
      params.put(parts[i].substring(0, colon), parts[i].substring(colon + 1));
    }
    return new Reference(prefix, engine, params);
  }

  private record Reference(String prefix, String engine, Map<String, String> params) {

    String required(String param, String what) throws ReferenceException {
      String value = params.get(param);
      if (value == null || value.isBlank()) {
        throw new ReferenceException(
            "needs the parameter '"
                + param
                + "' ("
                + what
                + "), as in "
                + prefix
                + engine
                + "!"
                + param
                + ":"
                + (param.equals("n") ? "<VARIABLE>" : "<path>"));
      }
      return value;
    }
  }
}
