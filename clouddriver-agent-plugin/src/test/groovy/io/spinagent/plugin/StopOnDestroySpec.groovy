package io.spinagent.plugin

import org.springframework.context.SmartLifecycle
import org.springframework.context.support.GenericApplicationContext
import spock.lang.Specification

class StopOnDestroySpec extends Specification {

  def "a failed refresh stops the lifecycles that had already started"() {
    given: 'a listener that starts first, then a component that cannot start'
    def context = new GenericApplicationContext()
    context.beanFactory.addBeanPostProcessor(new GuardedSpringLoader.StopOnDestroy())
    def listener = new Phased(phase: 1)
    context.registerBean('listener', Phased, { listener })
    context.registerBean('broken', Phased, { new Phased(phase: 2, failure: 'port taken') })

    when:
    context.refresh()

    then:
    thrown(RuntimeException)
    listener.starts == 1
    !listener.running
  }

  def "a context closed normally stops each lifecycle once"() {
    given:
    def context = new GenericApplicationContext()
    context.beanFactory.addBeanPostProcessor(new GuardedSpringLoader.StopOnDestroy())
    def listener = new Phased(phase: 1)
    context.registerBean('listener', Phased, { listener })
    context.refresh()

    when:
    context.close()

    then:
    listener.stops == 1
    !listener.running
  }

  static class Phased implements SmartLifecycle {
    int phase
    String failure
    int starts
    int stops
    boolean running

    void start() {
      if (failure) {
        throw new IllegalStateException(failure)
      }
      starts++
      running = true
    }

    void stop() {
      stops++
      running = false
    }

    boolean isRunning() { running }

    int getPhase() { phase }
  }
}
