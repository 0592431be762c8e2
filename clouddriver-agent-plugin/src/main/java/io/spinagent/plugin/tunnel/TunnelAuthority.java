package io.spinagent.plugin.tunnel;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicReference;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The tunnel's certificate authority: kubeconfigs trust it, and each replica signs its own serving
 * certificate with it. With a database it is made once and shared by every replica (see {@link
 * Store}), so one stored kubeconfig works against any replica's tunnel.
 */
public final class TunnelAuthority {

  /** Long-lived: kubeconfigs carrying it are written once per account. */
  static final Duration VALIDITY = Duration.ofDays(3650);

  static final X500Name NAME = new X500Name("CN=SpinAgent tunnel CA");

  private final X509Certificate certificate;
  private final PrivateKey privateKey;

  private TunnelAuthority(X509Certificate certificate, PrivateKey privateKey) {
    this.certificate = certificate;
    this.privateKey = privateKey;
  }

  /** Where the replicas keep the one authority they share. */
  public interface Store {
    /** Keeps {@code candidate} unless an authority is already stored; returns the stored one. */
    TunnelAuthority keepFirst(TunnelAuthority candidate);

    /** This replica's memory: a replica without a database, whose CA is its own. */
    static Store inMemory() {
      AtomicReference<TunnelAuthority> kept = new AtomicReference<>();
      return candidate -> {
        kept.compareAndSet(null, candidate);
        return kept.get();
      };
    }
  }

  /** The authority in {@code store}, made now if there is none yet. */
  public static TunnelAuthority shared(Store store) {
    return store.keepFirst(generate());
  }

  public static TunnelAuthority generate() {
    try {
      KeyPair keys = TunnelTls.keyPair();
      Instant now = Instant.now();
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              NAME,
              BigInteger.valueOf(now.toEpochMilli()),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(VALIDITY)),
              NAME,
              keys.getPublic());
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      X509Certificate certificate =
          new JcaX509CertificateConverter()
              .getCertificate(
                  builder.build(
                      new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate())));
      return new TunnelAuthority(certificate, keys.getPrivate());
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException(
          "SpinAgent cannot create the tunnel's certificate authority: " + e.getMessage(), e);
    }
  }

  /** An authority as {@link #certificatePem()} and {@link #privateKeyPem()} wrote it. */
  public static TunnelAuthority fromPem(String certificatePem, String privateKeyPem) {
    try (PEMParser certificates = new PEMParser(new StringReader(certificatePem));
        PEMParser keys = new PEMParser(new StringReader(privateKeyPem))) {
      X509Certificate certificate =
          new JcaX509CertificateConverter()
              .getCertificate((X509CertificateHolder) certificates.readObject());
      PrivateKey key = new JcaPEMKeyConverter().getPrivateKey((PrivateKeyInfo) keys.readObject());
      return new TunnelAuthority(certificate, key);
    } catch (IOException | GeneralSecurityException | ClassCastException | NullPointerException e) {
      throw new IllegalStateException(
          "SpinAgent cannot read the tunnel's certificate authority from its table"
              + " (spinagent_tunnel_authority): "
              + e.getMessage(),
          e);
    }
  }

  X509Certificate certificate() {
    return certificate;
  }

  PrivateKey privateKey() {
    return privateKey;
  }

  /** PEM of the certificate, for kubeconfigs' {@code certificate-authority-data}. */
  public String certificatePem() {
    return pem(certificate);
  }

  /** PKCS#8 PEM of the private key, for the shared table only. */
  public String privateKeyPem() {
    try {
      return pem(new JcaPKCS8Generator(privateKey, null).generate());
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode the tunnel CA's key: " + e.getMessage(), e);
    }
  }

  private static String pem(Object object) {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(object);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot encode " + object.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
    return out.toString();
  }
}
