package io.spinagent.agent.stream;

import io.grpc.util.AdvancedTlsX509KeyManager;
import java.io.Closeable;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.openssl.PEMDecryptorProvider;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8DecryptorProviderBuilder;
import org.bouncycastle.openssl.jcajce.JcePEMDecryptorProviderBuilder;
import org.bouncycastle.operator.InputDecryptorProvider;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.bouncycastle.pkcs.PKCSException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's client certificate and key for mutual TLS ({@code clouddriver.tls.clientCertFile},
 * {@code clientKeyFile}, {@code clientKeyFilePassword}), read from PEM files in every form Armory
 * Scale Agent (Go) reads: keys in PKCS#8, PKCS#1 (RSA) or SEC 1 (EC) form, encrypted (PKCS#8 with a
 * password, or OpenSSL's legacy PEM encryption) or not. The files are read again periodically and a
 * changed pair is used for the next connection, so rotated certificates need no restart.
 */
final class ClientIdentity {

  private static final Logger log = LoggerFactory.getLogger(ClientIdentity.class);

  /** The key of a problem with the pair's content (rather than with a file's presence). */
  private static final String PAIR = "clouddriver.tls.clientCertFile / clientKeyFile";

  private final Path certFile;
  private final Path keyFile;
  private final Optional<String> password;
  private final AdvancedTlsX509KeyManager keys;
  private byte[] loadedDigest;

  ClientIdentity(
      Path certFile, Path keyFile, Optional<String> password, AdvancedTlsX509KeyManager keys) {
    this.certFile = certFile;
    this.keyFile = keyFile;
    this.password = password;
    this.keys = keys;
  }

  /**
   * Reads both files and hands them to the key manager.
   *
   * @throws ChannelSetupException naming the key at fault
   */
  synchronized void load() {
    byte[] cert = readFile("clouddriver.tls.clientCertFile", certFile);
    byte[] key = readFile("clouddriver.tls.clientKeyFile", keyFile);
    X509Certificate[] chain = certificates(cert);
    PrivateKey privateKey = privateKey(key);
    keys.updateIdentityCredentials(chain, privateKey);
    loadedDigest = digest(cert, key);
  }

  /** Re-reads the files every {@code period}; a pair that cannot be read keeps the previous one. */
  Closeable reloadEvery(long period, TimeUnit unit, ScheduledExecutorService executor) {
    ScheduledFuture<?> task =
        executor.scheduleWithFixedDelay(this::reloadIfChanged, period, period, unit);
    return () -> task.cancel(false);
  }

  private synchronized void reloadIfChanged() {
    try {
      byte[] now =
          digest(
              readFile("clouddriver.tls.clientCertFile", certFile),
              readFile("clouddriver.tls.clientKeyFile", keyFile));
      if (!Arrays.equals(now, loadedDigest)) {
        load();
        log.info("Reloaded the client certificate {} and key {}", certFile, keyFile);
      }
    } catch (ChannelSetupException e) {
      log.warn("Keeping the previous client certificate: {}", e.getMessage());
    }
  }

  private static byte[] readFile(String key, Path file) {
    return PemFiles.read(key, file);
  }

  private X509Certificate[] certificates(byte[] pem) {
    return PemFiles.certificates(PAIR, certFile, pem, "a PEM certificate chain");
  }

  private PrivateKey privateKey(byte[] pem) {
    String passwordKey = "clouddriver.tls.clientKeyFilePassword";
    Object parsed;
    try (PEMParser parser =
        new PEMParser(new StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
      parsed = parser.readObject();
    } catch (IOException e) {
      throw keyProblem(PAIR, "it is not PEM (" + e.getMessage() + ")", e);
    }
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    try {
      if (parsed instanceof PEMEncryptedKeyPair encrypted) {
        PEMDecryptorProvider decryptor =
            new JcePEMDecryptorProviderBuilder()
                .setProvider(new BouncyCastleProvider())
                .build(requiredPassword(passwordKey).toCharArray());
        // The private key alone: a SEC 1 key need not carry its public key.
        return converter.getPrivateKey(encrypted.decryptKeyPair(decryptor).getPrivateKeyInfo());
      }
      if (parsed instanceof PKCS8EncryptedPrivateKeyInfo encrypted) {
        InputDecryptorProvider decryptor =
            new JceOpenSSLPKCS8DecryptorProviderBuilder()
                .setProvider(new BouncyCastleProvider())
                .build(requiredPassword(passwordKey).toCharArray());
        return converter.getPrivateKey(encrypted.decryptPrivateKeyInfo(decryptor));
      }
      if (parsed instanceof PEMKeyPair pair) {
        return converter.getPrivateKey(pair.getPrivateKeyInfo());
      }
      if (parsed instanceof PrivateKeyInfo info) {
        return converter.getPrivateKey(info);
      }
    } catch (IOException | PKCSException | OperatorCreationException e) {
      // Decryption with the wrong password fails here (bad padding, wrong MAC).
      throw keyProblem(
          password.isPresent() ? passwordKey : PAIR,
          password.isPresent()
              ? "cannot decrypt " + keyFile + " with it (" + e.getMessage() + ")"
              : "it is not a usable private key (" + e.getMessage() + ")",
          e);
    }
    throw keyProblem(
        PAIR,
        "it holds no private key: expected a PEM private key (PKCS#8, PKCS#1 or SEC 1, encrypted"
            + " or not)",
        null);
  }

  private String requiredPassword(String passwordKey) {
    return password.orElseThrow(
        () -> keyProblem(passwordKey, "is required: " + keyFile + " is encrypted", null));
  }

  private ChannelSetupException keyProblem(String key, String problem, Throwable cause) {
    return new ChannelSetupException(
        key, key.endsWith("Password") ? problem : "cannot read " + keyFile + ": " + problem, cause);
  }

  private static byte[] digest(byte[] cert, byte[] key) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(cert);
      sha.update((byte) 0);
      sha.update(key);
      return sha.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
