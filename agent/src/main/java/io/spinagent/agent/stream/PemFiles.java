package io.spinagent.agent.stream;

import io.spinagent.agent.config.yaml.BoundedFiles;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;

/**
 * The PEM files of the connection to Clouddriver (CA bundle, client certificate and key), read with
 * the size cap and with errors that name the configuration key and the file.
 */
final class PemFiles {

  private PemFiles() {}

  /** The file's bytes, at most {@link ClientTls#MAX_PEM_BYTES}. */
  static byte[] read(String key, Path file) {
    try {
      return BoundedFiles.read(file, ClientTls.MAX_PEM_BYTES, "a certificate or key file");
    } catch (BoundedFiles.UnreadableFileException e) {
      throw new ChannelSetupException(key, "cannot read " + file + ": it " + e.reason(), e);
    }
  }

  /**
   * The certificates of a PEM file; at least one.
   *
   * @param expected what the file should hold, for the error, e.g. "CA certificates (PEM)"
   */
  static X509Certificate[] certificates(String key, Path file, byte[] pem, String expected) {
    try {
      X509Certificate[] certificates =
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(pem))
              .toArray(X509Certificate[]::new);
      if (certificates.length == 0) {
        throw new CertificateException("no certificate in it");
      }
      return certificates;
    } catch (CertificateException e) {
      throw new ChannelSetupException(
          key, "cannot read " + file + ": expected " + expected + " (" + e.getMessage() + ")", e);
    }
  }
}
