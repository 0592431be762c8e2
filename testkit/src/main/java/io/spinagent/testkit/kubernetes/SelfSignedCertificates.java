package io.spinagent.testkit.kubernetes;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
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
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority and a serving certificate signed by it, generated in memory with
 * BouncyCastle. Clients are given the CA (in their kubeconfig), so TLS is verified for real: hostname
 * checks included, which is why the serving certificate names 127.0.0.1, ::1 and localhost as SANs
 * (Go's kubectl ignores the CN). EC P-256 keys keep generation fast.
 */
public final class SelfSignedCertificates {

  private static final char[] KEYSTORE_PASSWORD = "spinagent-testkit".toCharArray();

  private final X509Certificate caCertificate;
  private final X509Certificate serverCertificate;
  private final KeyPair serverKeys;

  private SelfSignedCertificates(X509Certificate ca, X509Certificate server, KeyPair serverKeys) {
    this.caCertificate = ca;
    this.serverCertificate = server;
    this.serverKeys = serverKeys;
  }

  /** A new CA and a serving certificate for the given host names and IP addresses. */
  public static SelfSignedCertificates generate(String... hosts) {
    try {
      SecureRandom random = new SecureRandom();
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), random);
      KeyPair caKeys = generator.generateKeyPair();
      KeyPair serverKeys = generator.generateKeyPair();
      Instant now = Instant.now();
      Date notBefore = Date.from(now.minus(Duration.ofHours(1)));
      Date notAfter = Date.from(now.plus(Duration.ofDays(365)));
      JcaX509ExtensionUtils extensions = new JcaX509ExtensionUtils();

      X500Name caName = new X500Name("CN=spinagent-testkit-ca");
      X509v3CertificateBuilder ca = new JcaX509v3CertificateBuilder(caName, serial(random), notBefore, notAfter,
          caName, caKeys.getPublic());
      ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      ca.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign
          | KeyUsage.digitalSignature));
      ca.addExtension(Extension.subjectKeyIdentifier, false, extensions.createSubjectKeyIdentifier(caKeys.getPublic()));
      X509Certificate caCertificate = convert(ca, caKeys);

      X509v3CertificateBuilder server = new JcaX509v3CertificateBuilder(caName, serial(random), notBefore, notAfter,
          new X500Name("CN=kube-apiserver"), serverKeys.getPublic());
      server.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      server.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      server.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
      server.addExtension(Extension.subjectAlternativeName, false, subjectAlternativeNames(hosts));
      server.addExtension(Extension.authorityKeyIdentifier, false,
          extensions.createAuthorityKeyIdentifier(caCertificate));
      server.addExtension(Extension.subjectKeyIdentifier, false,
          extensions.createSubjectKeyIdentifier(serverKeys.getPublic()));
      X509Certificate serverCertificate = convert(server, caKeys);
      return new SelfSignedCertificates(caCertificate, serverCertificate, serverKeys);
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException("could not generate test certificates", e);
    }
  }

  public X509Certificate caCertificate() {
    return caCertificate;
  }

  public X509Certificate serverCertificate() {
    return serverCertificate;
  }

  public String caCertificatePem() {
    return pem(caCertificate);
  }

  /** The SSLContext the server presents its certificate chain with. */
  public SSLContext serverContext() {
    try {
      KeyStore keyStore = KeyStore.getInstance("PKCS12");
      keyStore.load(null, null);
      keyStore.setKeyEntry("server", serverKeys.getPrivate(), KEYSTORE_PASSWORD,
          new Certificate[] {serverCertificate, caCertificate});
      KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keyManagers.init(keyStore, KEYSTORE_PASSWORD);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keyManagers.getKeyManagers(), null, new SecureRandom());
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An SSLContext that trusts only this CA: for tests that talk to the server with plain JDK clients. */
  public SSLContext clientContext() {
    try {
      KeyStore trustStore = KeyStore.getInstance("PKCS12");
      trustStore.load(null, null);
      trustStore.setCertificateEntry("ca", caCertificate);
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(trustStore);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), new SecureRandom());
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static String pem(X509Certificate certificate) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(certificate);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static GeneralNames subjectAlternativeNames(String... hosts) throws UnknownHostException {
    List<GeneralName> names = new ArrayList<>();
    names.add(new GeneralName(GeneralName.dNSName, "localhost"));
    names.add(new GeneralName(GeneralName.iPAddress, "127.0.0.1"));
    names.add(new GeneralName(GeneralName.iPAddress, "::1"));
    for (String host : hosts) {
      boolean ip = host.matches("[0-9.]+") || host.contains(":");
      if (ip) {
        InetAddress.getByName(host); // validates the literal
        names.add(new GeneralName(GeneralName.iPAddress, host));
      } else {
        names.add(new GeneralName(GeneralName.dNSName, host));
      }
    }
    return new GeneralNames(names.toArray(new GeneralName[0]));
  }

  private static BigInteger serial(SecureRandom random) {
    return new BigInteger(64, random).add(BigInteger.ONE);
  }

  private static X509Certificate convert(X509v3CertificateBuilder builder, KeyPair signer)
      throws OperatorCreationException, GeneralSecurityException {
    ContentSigner contentSigner = new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate());
    return new JcaX509CertificateConverter().getCertificate(builder.build(contentSigner));
  }
}
