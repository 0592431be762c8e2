package io.spinagent.agent;

import io.spinagent.agent.armory.ArmoryRewrite;
import io.spinagent.agent.config.binding.ConfigLoader;
import io.spinagent.agent.config.yaml.ConfigProblem;
import io.spinagent.agent.convert.AgentFileConverter;
import io.spinagent.agent.convert.PluginBlockConverter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code spinagent-agent convert-armory}: writes the SpinAgent equivalent of an Armory Scale Agent
 * configuration and lists what changed, what was dropped and what is left to fix. The converted
 * file goes to {@code --output} or standard output, the list to standard error.
 */
@Command(
    name = "convert-armory",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    description = {
      "Converts a configuration written for Armory Scale Agent into SpinAgent's:",
      "  the agent's armory-agent.yml (default), or with --plugin the Clouddriver settings of"
          + " Armory's plugin (kubesvc.*) in a Halyard profile or an Operator SpinnakerService.",
      "The converted file goes to --output or standard output; what changed, what was dropped"
          + " and what needs fixing by hand goes to standard error."
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      ExitCodes.OK + ":converted; the result needs nothing more",
      ExitCodes.USAGE + ":invalid command line",
      ExitCodes.INVALID_CONFIG
          + ":the input cannot be read, the result cannot be written, or it was written but needs"
          + " fixing by hand (listed)"
    })
final class ConvertArmoryCommand implements Callable<Integer> {

  @Parameters(paramLabel = "<file>", description = "The Armory configuration to convert.")
  private Path input;

  @Option(
      names = "--plugin",
      description =
          "Convert the plugin's kubesvc.* settings (Halyard or Operator YAML) instead of the"
              + " agent's file.")
  private boolean plugin;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "<file>",
      description = "Where to write the converted configuration (default: standard output).")
  private Path output;

  @Spec private CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    try {
      if (output != null && Files.exists(output) && Files.isSameFile(output, input)) {
        err.println("error: --output is the file being converted; write the result elsewhere");
        return ExitCodes.USAGE;
      }
      return plugin ? convertPlugin(err) : convertAgentFile(err);
    } catch (IOException e) {
      // Only --output is written; the input is read as the agent reads it, problems reported.
      err.println(
          "error: cannot write the converted configuration to " + output + ": " + reason(e));
      return ExitCodes.INVALID_CONFIG;
    }
  }

  private int convertAgentFile(PrintWriter err) throws IOException {
    // The host name is the default agent.id, which the converted file does not write.
    AgentFileConverter.Result result =
        new AgentFileConverter(new ConfigLoader(() -> "convert-armory")).convert(input, output);
    if (result.yaml() == null) {
      result.problems().forEach(p -> err.println("error: " + p.describe()));
      return ExitCodes.INVALID_CONFIG;
    }
    write(
        "# Converted from "
            + input.getFileName()
            + " by spinagent-agent convert-armory "
            + VersionProvider.version()
            + "\n"
            + result.yaml());
    err.println(
        "converted "
            + input
            + ": "
            + result.changed().size()
            + " changed, "
            + result.dropped().size()
            + " dropped, "
            + result.problems().size()
            + " to fix by hand");
    section(err, "changed", result.changed().stream().map(ArmoryRewrite::describe).toList());
    section(err, "dropped", result.dropped().stream().map(ArmoryRewrite::describe).toList());
    section(
        err, "to fix by hand", result.problems().stream().map(ConfigProblem::describe).toList());
    if (output != null) {
      err.println("check it with: spinagent-agent --config " + output + " --check");
    }
    return result.isClean() ? ExitCodes.OK : ExitCodes.INVALID_CONFIG;
  }

  private int convertPlugin(PrintWriter err) throws IOException {
    PluginBlockConverter.Result result = new PluginBlockConverter().convert(input);
    if (result.yaml() != null) {
      write(result.yaml());
    }
    err.println(
        "converted "
            + input
            + ": "
            + result.converted().size()
            + " converted, "
            + result.dropped().size()
            + " dropped, "
            + result.problems().size()
            + " to fix by hand");
    section(
        err,
        "converted",
        result.converted().stream().map(PluginBlockConverter.Change::describe).toList());
    section(
        err,
        "dropped",
        result.dropped().stream().map(PluginBlockConverter.Change::describe).toList());
    section(err, "to fix by hand", result.problems());
    return result.yaml() != null && result.problems().isEmpty()
        ? ExitCodes.OK
        : ExitCodes.INVALID_CONFIG;
  }

  private void write(String text) throws IOException {
    if (output == null) {
      PrintWriter out = spec.commandLine().getOut();
      out.print(text);
      out.flush();
    } else {
      Files.writeString(output, text, StandardCharsets.UTF_8);
    }
  }

  /** What went wrong, for one line after the file's name: the JDK's messages often are the name. */
  private static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static void section(PrintWriter err, String title, List<String> lines) {
    if (lines.isEmpty()) {
      return;
    }
    err.println(title + ":");
    lines.forEach(line -> err.println("  " + line));
  }
}
