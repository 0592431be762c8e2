package io.spinagent.plugin.config;

import org.springframework.context.SmartLifecycle;

/**
 * Start-up work done once, in its phase ({@link StartupPhases}), with nothing to undo when the
 * plugin stops: a migration, tables created, a warning about what this Clouddriver lacks. The
 * running flag every {@link SmartLifecycle} keeps is kept here.
 */
public abstract class StartupStep implements SmartLifecycle {

  private final int phase;
  private volatile boolean running;

  protected StartupStep(int phase) {
    this.phase = phase;
  }

  /** The work; what it throws stops the plugin's start, which Clouddriver survives. */
  protected abstract void run();

  @Override
  public final void start() {
    run();
    running = true;
  }

  @Override
  public final void stop() {
    running = false;
  }

  @Override
  public final boolean isRunning() {
    return running;
  }

  @Override
  public final int getPhase() {
    return phase;
  }
}
