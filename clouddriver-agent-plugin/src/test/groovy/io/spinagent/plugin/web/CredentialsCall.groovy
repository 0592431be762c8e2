package io.spinagent.plugin.web

import com.fasterxml.jackson.databind.ObjectMapper
import io.spinagent.host.CredentialsExchange
import io.spinagent.plugin.accounts.InMemoryAccountStorage

/**
 * One request to Clouddriver's {@code /credentials} as the host layer's filter hands it to the
 * plugin, with a Clouddriver behind it that keeps definitions in {@link InMemoryAccountStorage}: a
 * JSON POST or PUT it can read is stored, a DELETE deletes, as Clouddriver's CredentialsController
 * does; {@link #clouddriverStatus}, when set, is its answer instead (its checks refused the
 * request). Records what reached Clouddriver and what the caller was answered, by whom.
 */
class CredentialsCall implements CredentialsExchange {

  private static final ObjectMapper JSON = new ObjectMapper()

  final String method
  final String path
  final String contentType
  final byte[] requestBody
  private final InMemoryAccountStorage storage

  /** Clouddriver's answer, when its checks refuse the request. */
  Integer clouddriverStatus

  /** What reached Clouddriver: each method, and the body it was given. */
  final List<Map<String, Object>> reachedClouddriver = []

  /** The caller's answer: status, JSON body, and who gave it (clouddriver or spinagent). */
  Integer status
  Object body
  String answeredBy

  CredentialsCall(InMemoryAccountStorage storage, String method, String path, byte[] body, String contentType) {
    this.storage = storage
    this.method = method
    this.path = path
    this.requestBody = body
    this.contentType = contentType
  }

  /** The methods that reached Clouddriver, in order. */
  List<String> reached() {
    reachedClouddriver*.method
  }

  @Override
  String method() { method }

  @Override
  String contentType() { contentType }

  @Override
  String path() { path }

  @Override
  byte[] body(int maxBytes) {
    requestBody.length > maxBytes ? Arrays.copyOf(requestBody, maxBytes + 1) : requestBody
  }

  @Override
  void passThrough(byte[] body) {
    handleByClouddriver(body).send()
  }

  @Override
  ClouddriverAnswer handleByClouddriver(byte[] given) {
    byte[] sent = given ?: requestBody
    reachedClouddriver << [method: method, body: read(sent)]
    def answer = clouddriverStatus != null
      ? [clouddriverStatus, [message: 'refused by Clouddriver']]
      : clouddriver(sent)
    new ClouddriverAnswer() {
      int status() { answer[0] as int }

      void send() { answered(answer[0] as int, answer[1], 'clouddriver') }
    }
  }

  @Override
  void answer(int status, byte[] body) {
    answered(status, read(body), 'spinagent')
  }

  /** A body as JSON, or as text when it is not JSON; null when empty. */
  private static Object read(byte[] body) {
    if (body.length == 0) {
      return null
    }
    try {
      JSON.readValue(body, Object)
    } catch (IOException notJson) {
      new String(body, 'UTF-8')
    }
  }

  /** What Clouddriver does with a request its checks let through: status and body. */
  private List<Object> clouddriver(byte[] body) {
    if (method == 'GET') {
      return [200, []]
    }
    if (!(contentType ?: '').startsWith('application/json') && method != 'DELETE') {
      return [415, [message: 'Content type not supported']]
    }
    if (method == 'DELETE') {
      storage.delete(path.substring('/credentials/'.length()))
      return [200, null]
    }
    try {
      storage.save(storage.mapper.deserialize(new String(body, 'UTF-8')))
      return [200, JSON.readValue(body, Object)]
    } catch (Exception e) {
      return [400, [message: "cannot read the definition: ${e.message}".toString()]]
    }
  }

  /** Records the caller's answer; a second one is a defect. */
  void answered(int status, Object body, String by) {
    if (answeredBy != null) {
      throw new AssertionError("answered twice: by $answeredBy ($this.status), then by $by ($status)")
    }
    this.status = status
    this.body = body
    this.answeredBy = by
  }
}
