package io.spinagent.agent;

/** Entry point of the runnable jar: runs {@link AgentCommand} and exits with its code. */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    System.exit(AgentCommand.commandLine(new AgentCommand()).execute(args));
  }
}
