package io.spinagent.plugin.grpc.auth;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.SocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits an agent call only with an allowed client certificate subject and/or a valid bearer token,
 * as configured; otherwise ends it with UNAUTHENTICATED and logs why. An admitted call carries its
 * {@link AgentPeer} with the principal it authenticated as: the certificate subject when it has
 * one, else its token's identity, else {@link AgentPeer#ANONYMOUS}. The health service is exempt,
 * so probes need no credentials.
 */
public final class AgentAuthenticator implements ServerInterceptor {

  private static final Logger log = LoggerFactory.getLogger(AgentAuthenticator.class);
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
  private static final String BEARER = "Bearer ";

  private final boolean subjectsChecked;
  private final List<Pattern> subjectFilters;
  private final BearerTokens tokens;

  public AgentAuthenticator(
      boolean subjectsChecked, List<String> subjectFilters, BearerTokens tokens) {
    this.subjectsChecked = subjectsChecked;
    this.subjectFilters = subjectFilters.stream().map(Pattern::compile).toList();
    this.tokens = tokens;
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(
      ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
    if (call.getMethodDescriptor().getServiceName().equals("grpc.health.v1.Health")) {
      return next.startCall(call, headers);
    }
    SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    String subject = certificateSubject(call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION));
    Admission admission = admit(subject, headers.get(AUTHORIZATION));
    if (admission.refusal() != null) {
      log.warn(
          "Refused agent connection from {}{}: {}",
          remote,
          subject == null ? "" : " [" + subject + "]",
          admission.refusal());
      call.close(Status.UNAUTHENTICATED.withDescription(admission.refusal()), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    Context context =
        Context.current()
            .withValue(AgentPeer.KEY, new AgentPeer(remote, subject, admission.principal()));
    return Contexts.interceptCall(context, call, headers, next);
  }

  private Admission admit(String subject, String authorization) {
    if (subjectsChecked) {
      if (subject == null) {
        return Admission.refused("no client certificate (spinagent.grpc.auth.x509 is enabled)");
      }
      if (subjectFilters.stream().noneMatch(filter -> filter.matcher(subject).matches())) {
        return Admission.refused(
            "client certificate subject '"
                + subject
                + "' matches none of spinagent.grpc.auth.x509.filters");
      }
    }
    String tokenIdentity = null;
    if (tokens.required()) {
      if (authorization == null || !authorization.startsWith(BEARER)) {
        return Admission.refused("no bearer token (spinagent.grpc.auth.tokens is configured)");
      }
      Optional<String> identity = tokens.identify(authorization.substring(BEARER.length()).strip());
      if (identity.isEmpty()) {
        return Admission.refused("bearer token not accepted");
      }
      tokenIdentity = identity.get();
    }
    if (subject != null) {
      return Admission.as("x509:" + subject);
    }
    return Admission.as(tokenIdentity != null ? tokenIdentity : AgentPeer.ANONYMOUS);
  }

  /** Either the principal an admitted call authenticated as, or why it is refused. */
  private record Admission(String principal, String refusal) {
    static Admission as(String principal) {
      return new Admission(principal, null);
    }

    static Admission refused(String refusal) {
      return new Admission(null, refusal);
    }
  }

  private static String certificateSubject(SSLSession session) {
    if (session == null) {
      return null;
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate leaf
          ? leaf.getSubjectX500Principal().getName()
          : null;
    } catch (SSLPeerUnverifiedException noClientCertificate) {
      return null;
    }
  }
}
