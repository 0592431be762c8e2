package io.spinagent.plugin.tunnel

import java.net.http.HttpClient
import java.security.KeyStore
import java.security.cert.CertificateFactory
import javax.net.ssl.SSLContext
import javax.net.ssl.TrustManagerFactory

/** An HTTP client that trusts only the given CA, as a kubeconfig's certificate-authority-data does. */
class TrustingHttpClient {

  static HttpClient trusting(String caPem) {
    def trustStore = KeyStore.getInstance('PKCS12')
    trustStore.load(null, null)
    trustStore.setCertificateEntry('ca',
      CertificateFactory.getInstance('X.509').generateCertificate(new ByteArrayInputStream(caPem.bytes)))
    def trust = TrustManagerFactory.getInstance(TrustManagerFactory.defaultAlgorithm)
    trust.init(trustStore)
    def context = SSLContext.getInstance('TLS')
    context.init(null, trust.trustManagers, null)
    HttpClient.newBuilder().sslContext(context).build()
  }
}
