package io.spinagent.agent;

import io.spinagent.agent.config.AgentConfig;
import io.spinagent.agent.config.ProxyEnvironment;
import io.spinagent.agent.config.binding.ConfigLoadResult;
import io.spinagent.agent.config.binding.ConfigLoader;
import io.spinagent.agent.config.binding.ConfigSummary;
import io.spinagent.agent.config.binding.EffectiveConfig;
import io.spinagent.agent.config.yaml.ConfigProblem;
import io.spinagent.agent.config.yaml.Problems;
import io.spinagent.agent.stream.ChannelSetupException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The {@code spinagent-agent} command line: loads the configuration and either validates it ({@code
 * --check}) or runs the agent ({@link AgentRuntime}) until the JVM is asked to stop. Its one
 * sub-command, {@code convert-armory}, converts Armory Scale Agent's configuration.
 */
@Command(
    name = "spinagent-agent",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    sortOptions = false,
    subcommands = ConvertArmoryCommand.class,
    description =
        "Watches Kubernetes clusters and streams them to Spinnaker's Clouddriver over one"
            + " outbound gRPC connection.",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      ExitCodes.OK
          + ":--check: the configuration is valid (warnings may be printed); otherwise: the agent"
          + " was stopped (SIGTERM)",
      ExitCodes.SOFTWARE + ":unexpected internal error",
      ExitCodes.USAGE + ":invalid command line",
      ExitCodes.INVALID_CONFIG + ":invalid configuration"
    })
public final class AgentCommand implements Callable<Integer> {

  private static final Logger log = LoggerFactory.getLogger(AgentCommand.class);

  // Checked in call() rather than by picocli, which would ask for it before convert-armory too.
  @Option(
      names = {"-c", "--config"},
      paramLabel = "<file>",
      description =
          "The agent configuration (YAML). A sibling <name>-local.<ext>, if present,"
              + " is merged over it.")
  private Path configFile;

  @Option(
      names = "--check",
      description =
          "Validate the configuration, print its warnings and the effective configuration, and"
              + " exit.")
  private boolean check;

  @Spec private CommandSpec spec;

  private final ConfigLoader loader;
  private final RuntimeStarter starter;

  public AgentCommand() {
    this(new ConfigLoader());
  }

  AgentCommand(ConfigLoader loader) {
    this(loader, AgentRuntime::start);
  }

  AgentCommand(ConfigLoader loader, RuntimeStarter starter) {
    this.loader = loader;
    this.starter = starter;
  }

  /** The command line as {@link Main} runs it; tests use it too, with their own writers. */
  public static CommandLine commandLine(AgentCommand command) {
    return new CommandLine(command);
  }

  @Override
  public Integer call() {
    if (configFile == null) {
      throw new ParameterException(
          spec.commandLine(), "Missing required option: '--config=<file>'");
    }
    ConfigLoadResult result = loader.load(configFile);
    PrintWriter err = spec.commandLine().getErr();
    if (result instanceof ConfigLoadResult.Invalid invalid) {
      err.println("error: " + invalid.report());
      invalid.warnings().forEach(w -> err.println("warning: " + w.describe()));
      return ExitCodes.INVALID_CONFIG;
    }
    ConfigLoadResult.Loaded loaded = (ConfigLoadResult.Loaded) result;
    if (check) {
      Problems unusable = FileCheck.problems(loaded.config(), configFile);
      if (!unusable.isEmpty()) {
        ConfigLoadResult.Invalid invalid =
            new ConfigLoadResult.Invalid(
                unusable.asList(), loaded.files(), loaded.warnings(), unusable.omittedProblems());
        err.println("error: " + invalid.report());
        invalid.warnings().forEach(w -> err.println("warning: " + w.describe()));
        return ExitCodes.INVALID_CONFIG;
      }
      loaded.warnings().forEach(w -> err.println("warning: " + w.describe()));
      err.flush();
      PrintWriter out = spec.commandLine().getOut();
      out.println("# effective configuration (defaults filled in, secrets redacted)");
      EffectiveConfig.print(loaded.config(), out);
      out.println("configuration is valid: " + loaded.files());
      return ExitCodes.OK;
    }
    LoggingSetup.apply(loaded.config().logging());
    log.info("spinagent-agent {}, configuration {}", VersionProvider.version(), loaded.files());
    ConfigSummary.lines(loaded.config()).forEach(line -> log.info("{}", line));
    for (ConfigProblem warning : loaded.warnings()) {
      log.warn("{}", warning.describe());
    }
    ProxyEnvironment proxies = ProxyEnvironment.system();
    if (proxies.isSet()) {
      log.info("Proxy variables: {}", proxies.describe());
    }
    AgentRuntime runtime;
    try {
      runtime = starter.start(configFile, loaded.config(), loader);
    } catch (ChannelSetupException e) {
      // A file the configuration names cannot be used: the configuration's problem, not a bug.
      log.error("The agent could not start: {}", e.getMessage());
      err.println("error: invalid configuration " + configFile + ": " + e.getMessage());
      return ExitCodes.INVALID_CONFIG;
    } catch (RuntimeException e) {
      log.error("The agent could not start", e);
      spec.commandLine().getErr().println("error: the agent could not start: " + e.getMessage());
      return ExitCodes.SOFTWARE;
    }
    Thread hook = new Thread(runtime::close, "spinagent-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      runtime.awaitClosed();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      runtime.close();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException alreadyShuttingDown) {
      // The hook is what closed the runtime.
    }
    return ExitCodes.OK;
  }

  /** How the command starts the runtime; replaceable in tests. */
  @FunctionalInterface
  interface RuntimeStarter {
    AgentRuntime start(Path configFile, AgentConfig config, ConfigLoader loader);
  }
}
