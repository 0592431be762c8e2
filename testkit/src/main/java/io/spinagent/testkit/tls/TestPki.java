package io.spinagent.testkit.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A certificate authority made up on the spot, for tests and the sandbox: it issues server
 * certificates for loopback and client certificates with a chosen subject, and writes them as the
 * PEM files that real deployments configure (certificate chain, PKCS#8 private key, CA bundle).
 */
public final class TestPki {

  private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

  private final String name;
  private final KeyPair caKeys;
  private final X509Certificate caCertificate;

  private TestPki(String name, KeyPair caKeys, X509Certificate caCertificate) {
    this.name = name;
    this.caKeys = caKeys;
    this.caCertificate = caCertificate;
  }

  /** A new CA named {@code CN=<name>}. */
  public static TestPki create(String name) {
    try {
      KeyPair keys = newKeyPair();
      X500Name subject = new X500Name("CN=" + name);
      X509v3CertificateBuilder builder = builder(subject, subject, keys);
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      builder.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      return new TestPki(name, keys, sign(builder, keys));
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("Cannot create test CA " + name, e);
    }
  }

  public X509Certificate caCertificate() {
    return caCertificate;
  }

  public String caCertificatePem() {
    return pem(caCertificate);
  }

  /** A client-side SSLContext that trusts only this CA, for plain JDK clients in tests. */
  public SSLContext clientContext() {
    try {
      KeyStore trustStore = KeyStore.getInstance("PKCS12");
      trustStore.load(null, null);
      trustStore.setCertificateEntry("ca", caCertificate);
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trustStore);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(
          "Cannot build a client TLS context trusting test CA " + name, e);
    }
  }

  /** Writes the CA certificate as PEM to {@code file}. */
  public Path writeCaCertificate(Path file) {
    return write(file, pem(caCertificate));
  }

  /** A server certificate valid for localhost, 127.0.0.1 and ::1, plus {@code extraHosts}. */
  public Issued issueServer(String commonName, String... extraHosts) {
    List<GeneralName> names = new ArrayList<>();
    names.add(new GeneralName(GeneralName.dNSName, "localhost"));
    names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    names.add(new GeneralName(GeneralName.iPAddress, "::1"));
    for (String host : extraHosts) {
      if (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("::1")) {
        continue;
      }
      names.add(
          new GeneralName(isIpAddress(host) ? GeneralName.iPAddress : GeneralName.dNSName, host));
    }
    return issue(
        "CN=" + commonName,
        KeyPurposeId.id_kp_serverAuth,
        new GeneralNames(names.toArray(GeneralName[]::new)));
  }

  /**
   * A client certificate whose subject, as Java prints it (RFC 2253), is {@code subject}, e.g.
   * {@code CN=agent-1,O=SpinAgent}.
   */
  public Issued issueClient(String subject) {
    return issue(subject, KeyPurposeId.id_kp_clientAuth, null);
  }

  private Issued issue(String subject, KeyPurposeId purpose, GeneralNames altNames) {
    try {
      KeyPair keys = newKeyPair();
      // Through X500Principal, so the encoded order is the one that prints back as `subject`.
      X500Name subjectName = X500Name.getInstance(new X500Principal(subject).getEncoded());
      X500Name issuerName =
          X500Name.getInstance(caCertificate.getSubjectX500Principal().getEncoded());
      X509v3CertificateBuilder builder = builder(issuerName, subjectName, keys);
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
      builder.addExtension(
          Extension.authorityKeyIdentifier,
          false,
          extensions.createAuthorityKeyIdentifier(caCertificate));
      if (altNames != null) {
        builder.addExtension(Extension.subjectAlternativeName, false, altNames);
      }
      return new Issued(sign(builder, caKeys), keys, caCertificate);
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("Cannot issue " + subject + " from test CA " + name, e);
    }
  }

  /** An issued certificate with its private key. */
  public record Issued(X509Certificate certificate, KeyPair keys, X509Certificate issuer) {

    /**
     * Writes {@code <prefix>.crt} (leaf then CA) and {@code <prefix>.key} (PKCS#8) into {@code
     * dir}.
     */
    public PemFiles written(Path dir, String prefix) {
      Path chain = write(dir.resolve(prefix + ".crt"), pem(certificate) + pem(issuer));
      Path key = write(dir.resolve(prefix + ".key"), pemPrivateKey(keys));
      return new PemFiles(chain, key);
    }

    public record PemFiles(Path certificateChain, Path privateKey) {}

    /** A server-side SSLContext presenting this certificate and its issuer. */
    public SSLContext serverContext() {
      char[] password = "testkit".toCharArray();
      try {
        KeyStore keyStore = KeyStore.getInstance("PKCS12");
        keyStore.load(null, null);
        keyStore.setKeyEntry(
            "server", keys.getPrivate(), password, new Certificate[] {certificate, issuer});
        KeyManagerFactory keyManagers =
            KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        keyManagers.init(keyStore, password);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers.getKeyManagers(), null, null);
        return context;
      } catch (GeneralSecurityException | IOException e) {
        throw new IllegalStateException(
            "Cannot build a server TLS context for " + certificate.getSubjectX500Principal(), e);
      }
    }
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(
        issuer,
        BigInteger.valueOf(SERIAL.incrementAndGet()),
        Date.from(now.minus(Duration.ofMinutes(5))),
        Date.from(now.plus(Duration.ofDays(2))),
        subject,
        keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer)
      throws GeneralSecurityException {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(
              builder.build(
                  new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    } catch (org.bouncycastle.operator.OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(256);
    return generator.generateKeyPair();
  }

  private static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static String pemPrivateKey(KeyPair keys) {
    try {
      return pem(new JcaPKCS8Generator(keys.getPrivate(), null).generate());
    } catch (org.bouncycastle.util.io.pem.PemGenerationException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path write(Path file, String content) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      return Files.writeString(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file, e);
    }
  }

  private static boolean isIpAddress(String host) {
    return host.contains(":") || host.matches("\\d{1,3}(\\.\\d{1,3}){3}");
  }
}
