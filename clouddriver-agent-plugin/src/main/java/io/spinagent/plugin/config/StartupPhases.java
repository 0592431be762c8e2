package io.spinagent.plugin.config;

/**
 * The order in which the plugin's start-up work runs when its Spring context starts: the {@code
 * SmartLifecycle} phases of its components, lowest first, stopped in reverse order. Agents can
 * connect only once everything they reach is running, and they are disconnected first when the
 * plugin stops. docs/architecture.md lists what runs in each phase.
 */
public final class StartupPhases {

  /** SpinAgent's tables brought up to date (the one migration step), or word that there is none. */
  public static final int DATABASE = 100;

  /**
   * The accounts this replica served restored from the database, the account registry's listeners
   * registered, the heartbeat of this replica's accounts, Clouddriver's account definitions.
   */
  public static final int ACCOUNTS = 200;

  /** Account ownership among Clouddriver replicas, and the endpoint they forward requests to. */
  public static final int REPLICAS = 300;

  /** The writer of the tunnel's operation history. */
  public static final int OPERATION_HISTORY = 350;

  /** The Kubernetes API tunnel, with the certificate authority it serves under. */
  public static final int TUNNEL = 400;

  /** The port agents connect to, and the sweep of orphaned accounts: last. */
  public static final int AGENT_PORT = 500;

  private StartupPhases() {}
}
