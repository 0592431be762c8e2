package io.spinagent.plugin.tunnel.history;

import java.util.List;

/**
 * What {@code GET /spinagent/operations} answers.
 *
 * @param operations newest first
 * @param offset the offset asked for
 * @param limit the limit applied
 * @param nextOffset the offset of the following page; null when this is the last
 * @param storage where the history lives: {@code sql}, or {@code memory} (this replica's last
 *     operations only)
 */
public record OperationPage(
    List<OperationRecord> operations, int offset, int limit, Integer nextOffset, String storage) {}
