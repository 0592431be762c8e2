package io.spinagent.plugin.grpc.session;

import io.spinagent.protocol.v1.AccountInfo;
import io.spinagent.protocol.v1.ChangeType;
import io.spinagent.protocol.v1.Kind;
import io.spinagent.protocol.v1.ObjectChange;
import io.spinagent.protocol.v1.ResyncMarker;
import io.spinagent.protocol.v1.ResyncPhase;
import io.spinagent.protocol.v1.WatchProgress;

/**
 * What a session checks of an agent's frames before it acts on them: required fields, with a
 * message that names the frame, the account and the field. A frame that fails ends the agent's
 * session ({@link ProtocolViolation}), never anyone else's.
 */
final class FrameValidation {

  /**
   * Kubernetes resource versions are opaque, but API servers send decimal numbers (etcd revisions);
   * the bound is the resume-point table's column, so an agent learns of a longer one here, with its
   * account and kind, and not from a failed transaction.
   */
  static final int MAX_RESOURCE_VERSION_LENGTH = 64;

  private FrameValidation() {}

  static void validate(AccountInfo account) {
    if (account.getName().isBlank()) {
      throw ProtocolViolation.invalid("account name is required");
    }
    if (account.getCluster().getApiServerHost().isBlank()) {
      throw ProtocolViolation.invalid(
          "account '" + account.getName() + "': cluster.api_server_host is required");
    }
    for (Kind kind : account.getKindsList()) {
      validate(kind, "account '" + account.getName() + "'");
    }
  }

  static void validate(ObjectChange change, String account, int index) {
    String where = "changes for account '" + account + "', change " + index;
    if (change.getSequence() <= 0) {
      throw ProtocolViolation.invalid(where + ": sequence must be positive");
    }
    validate(change.getKind(), where);
    if (change.getName().isEmpty()) {
      throw ProtocolViolation.invalid(where + ": name is required");
    }
    if (change.getType() == ChangeType.CHANGE_TYPE_UNSPECIFIED) {
      throw ProtocolViolation.invalid(where + " (" + change.getName() + "): type is required");
    }
    if (change.getType() == ChangeType.CHANGE_TYPE_UPSERT && change.getObjectJson().isEmpty()) {
      throw ProtocolViolation.invalid(
          where + " (" + change.getName() + "): an upsert needs object_json");
    }
  }

  static void validate(ResyncMarker marker, String account) {
    String where = "resync for account '" + account + "'";
    if (marker.getPhase() == ResyncPhase.RESYNC_PHASE_UNSPECIFIED) {
      throw ProtocolViolation.invalid(where + ": phase is required");
    }
    validate(marker.getKind(), where);
    if (marker.getSequence() <= 0) {
      throw ProtocolViolation.invalid(where + ": sequence must be positive");
    }
  }

  static void validate(WatchProgress progress, String account) {
    String where = "watch progress for account '" + account + "'";
    validate(progress.getKind(), where);
    if (progress.getSequence() <= 0) {
      throw ProtocolViolation.invalid(where + ": sequence must be positive");
    }
    if (progress.getResourceVersion().isEmpty()) {
      throw ProtocolViolation.invalid(
          where + " (" + progress.getKind().getKind() + "): resource_version is required");
    }
    if (progress.getResourceVersion().length() > MAX_RESOURCE_VERSION_LENGTH) {
      throw ProtocolViolation.invalid(
          where
              + " ("
              + progress.getKind().getKind()
              + "): resource_version longer than "
              + MAX_RESOURCE_VERSION_LENGTH
              + " characters");
    }
  }

  static void validate(Kind kind, String where) {
    if (kind.getKind().isEmpty() || kind.getVersion().isEmpty() || kind.getPlural().isEmpty()) {
      throw ProtocolViolation.invalid(
          where + ": kind needs kind, version and plural, got " + kind.toString().trim());
    }
  }
}
