package io.spinagent.plugin.cache;

import io.spinagent.protocol.v1.ResumePoint;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The last committed {@link SinkEntry.Progress} per account and kind, which a connecting agent may
 * watch from instead of listing (protocol version 2).
 */
public interface ResumePoints {

  /** Nothing is ever resumable: every kind is listed. */
  ResumePoints NONE = accounts -> Map.of();

  /**
   * The resume points of these accounts, by account name; an account without any is absent. One
   * read for all of them, so that a handshake with many accounts costs one query.
   */
  Map<String, List<ResumePoint>> of(Collection<String> accounts);
}
