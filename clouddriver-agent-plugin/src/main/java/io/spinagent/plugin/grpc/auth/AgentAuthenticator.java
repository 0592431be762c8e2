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
import java.util.regex.Pattern;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admits an agent call only with an allowed client certificate subject and/or a valid bearer token,
 * as configured; otherwise ends it with UNAUTHENTICATED and logs why. The health service is exempt,
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
    String refusal = refusal(subject, headers.get(AUTHORIZATION));
    if (refusal != null) {
      log.warn(
          "Refused agent connection from {}{}: {}",
          remote,
          subject == null ? "" : " [" + subject + "]",
          refusal);
      call.close(Status.UNAUTHENTICATED.withDescription(refusal), new Metadata());
      return new ServerCall.Listener<>() {};
    }
    Context context = Context.current().withValue(AgentPeer.KEY, new AgentPeer(remote, subject));
    return Contexts.interceptCall(context, call, headers, next);
  }

  private String refusal(String subject, String authorization) {
    if (subjectsChecked) {
      if (subject == null) {
        return "no client certificate (spinagent.grpc.auth.x509 is enabled)";
      }
      if (subjectFilters.stream().noneMatch(filter -> filter.matcher(subject).matches())) {
        return "client certificate subject '"
            + subject
            + "' matches none of spinagent.grpc.auth.x509.filters";
      }
    }
    if (tokens.required()) {
      if (authorization == null || !authorization.startsWith(BEARER)) {
        return "no bearer token (spinagent.grpc.auth.tokens is configured)";
      }
      if (!tokens.accepts(authorization.substring(BEARER.length()).strip())) {
        return "bearer token not accepted";
      }
    }
    return null;
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
