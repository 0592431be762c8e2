package io.spinagent.testkit.kubernetes

import java.time.Clock
import java.time.Duration
import java.time.Instant
import java.time.ZoneId
import java.time.ZoneOffset

/** A clock that stands still until a spec steps it, for ages and durations that come out exact. */
final class SteppingClock extends Clock {

  private volatile Instant now

  SteppingClock(Instant start) {
    now = start
  }

  void step(Duration duration) {
    now = now.plus(duration)
  }

  @Override
  ZoneId getZone() {
    ZoneOffset.UTC
  }

  @Override
  Clock withZone(ZoneId zone) {
    throw new UnsupportedOperationException('the test server runs in UTC')
  }

  @Override
  Instant instant() {
    now
  }
}
