package io.spinagent.host;

import java.io.IOException;

/**
 * One request to Clouddriver's {@code /credentials} and what can be done with it, free of the
 * servlet API (which differs between Spinnaker lines): the host layer's filter implements it.
 */
public interface CredentialsExchange {

  /** The HTTP method. */
  String method();

  /** The request's {@code Content-Type}, or null when it has none. */
  String contentType();

  /**
   * The path below Clouddriver's context path, without a trailing slash: {@code /credentials/a}.
   */
  String path();

  /**
   * The request's body, read up to {@code maxBytes + 1} bytes: a longer array means the body is
   * over {@code maxBytes} (the rest is left unread).
   */
  byte[] body(int maxBytes) throws IOException;

  /**
   * Lets Clouddriver handle the request, with {@code body} as its body (null: the request's own),
   * and sends its answer.
   */
  void passThrough(byte[] body) throws IOException;

  /**
   * Lets Clouddriver handle the request, with {@code body} as its body (null: the request's own),
   * and holds its answer back: the caller sends it ({@link ClouddriverAnswer#send()}) or answers in
   * its place ({@link #answer}).
   */
  ClouddriverAnswer handleByClouddriver(byte[] body) throws IOException;

  /**
   * Answers with {@code status} and a JSON {@code body}, in place of anything Clouddriver wrote.
   */
  void answer(int status, byte[] body) throws IOException;

  /** Clouddriver's answer, held back. */
  interface ClouddriverAnswer {

    /** The status Clouddriver answered with. */
    int status();

    /** Sends Clouddriver's answer as it was. */
    void send() throws IOException;
  }
}
