package io.spinagent.agent.stream

import io.grpc.Grpc
import io.grpc.Metadata
import io.grpc.ServerCall
import io.grpc.ServerCallHandler
import io.grpc.ServerInterceptor
import io.grpc.ServerInterceptors
import io.grpc.Status
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
import io.grpc.netty.shaded.io.netty.handler.ssl.ClientAuth
import io.grpc.stub.StreamObserver
import io.spinagent.agent.config.AuthConfig
import io.spinagent.agent.config.BackoffConfig
import io.spinagent.agent.config.ClouddriverConfig
import io.spinagent.agent.config.GrpcTarget
import io.spinagent.agent.config.OutboxConfig
import io.spinagent.agent.config.ProxyEnvironment
import io.spinagent.agent.config.TlsConfig
import io.spinagent.protocol.v1.AgentChannelGrpc
import io.spinagent.protocol.v1.AgentMessage
import io.spinagent.protocol.v1.PluginMessage
import io.spinagent.protocol.v1.Welcome
import io.spinagent.testkit.tls.TestPki
import java.nio.file.Files
import java.nio.file.Path
import java.security.cert.X509Certificate
import java.time.Duration
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import javax.net.ssl.SSLSession
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo
import org.bouncycastle.asn1.sec.ECPrivateKey
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo
import org.bouncycastle.jce.provider.BouncyCastleProvider
import org.bouncycastle.openssl.jcajce.JcaMiscPEMGenerator
import org.bouncycastle.openssl.jcajce.JcaPEMWriter
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder
import spock.lang.Specification
import spock.lang.TempDir

/**
 * Mutual TLS with the client key in every PEM form Armory Scale Agent reads, encrypted ones with
 * clouddriver.tls.clientKeyFilePassword: a real gRPC server requires the client certificate and
 * records whom it saw.
 */
class ClientKeysSpec extends Specification {

  static final BouncyCastleProvider BC = new BouncyCastleProvider()

  @TempDir Path dir
  TestPki pki = TestPki.create('client-keys-spec')
  TestPki.Issued server = pki.issueServer('clouddriver')
  TestPki.Issued client = pki.issueClient('CN=agent-eu-1,O=Acme')
  List<String> clientSubjects = new CopyOnWriteArrayList<>()
  def executor = Executors.newSingleThreadScheduledExecutor()
  io.grpc.Server grpc
  List<ClouddriverConnection> connections = []

  def setup() {
    def serverFiles = server.written(dir, 'server')
    def sslContext = GrpcSslContexts.forServer(serverFiles.certificateChain().toFile(), serverFiles.privateKey().toFile())
        .trustManager(pki.writeCaCertificate(dir.resolve('ca.crt')).toFile())
        .clientAuth(ClientAuth.REQUIRE)
        .build()
    def service = new AgentChannelGrpc.AgentChannelImplBase() {
      @Override
      StreamObserver<AgentMessage> connect(StreamObserver<PluginMessage> responses) {
        new StreamObserver<AgentMessage>() {
          void onNext(AgentMessage message) {
            responses.onNext(PluginMessage.newBuilder().setWelcome(Welcome.newBuilder().setSessionId('s')).build())
          }
          void onError(Throwable t) {}
          void onCompleted() { responses.onCompleted() }
        }
      }
    }
    def recordPeer = new ServerInterceptor() {
      @Override
      <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        SSLSession session = call.attributes.get(Grpc.TRANSPORT_ATTR_SSL_SESSION)
        clientSubjects << (session.peerCertificates[0] as X509Certificate).subjectX500Principal.name
        next.startCall(call, headers)
      }
    }
    grpc = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
        .sslContext(sslContext)
        .addService(ServerInterceptors.intercept(service, recordPeer))
        .build().start()
  }

  def cleanup() {
    connections*.close()
    grpc?.shutdownNow()?.awaitTermination(10, TimeUnit.SECONDS)
    executor.shutdownNow()
  }

  ClouddriverConnection connect(Path key, String password) {
    def tls = new TlsConfig(Optional.empty(), false, Optional.of(client.written(dir, 'client').certificateChain()),
        Optional.of(key), Optional.of(dir.resolve('ca.crt')), Optional.ofNullable(password))
    def config = new ClouddriverConfig(new GrpcTarget('127.0.0.1', grpc.port), false, tls,
        new AuthConfig(Optional.empty(), Optional.empty()), 20, 10,
        new BackoffConfig(Duration.ofMillis(100), 1.6, 0.2, Duration.ofSeconds(1)), new OutboxConfig(1 << 20), true)
    def connection = ClouddriverConnection.open(config, executor, executor, ProxyEnvironment.of { null })
    connections << connection
    connection
  }

  Path pem(String name, Object object) {
    def file = dir.resolve(name)
    new JcaPEMWriter(Files.newBufferedWriter(file)).withCloseable { it.writeObject(object) }
    file
  }

  /**
   * The client key as OpenSSL writes an "EC PRIVATE KEY": its curve and public key inside (the
   * JDK's PKCS#8 encoding keeps the curve outside, which a SEC 1 file would lose).
   */
  PrivateKeyInfo sec1() {
    def info = PrivateKeyInfo.getInstance(client.keys().private.encoded)
    def key = ECPrivateKey.getInstance(info.parsePrivateKey())
    def publicKey = SubjectPublicKeyInfo.getInstance(client.keys().public.encoded).publicKeyData
    new PrivateKeyInfo(info.privateKeyAlgorithm,
        new ECPrivateKey(256, key.key, publicKey, info.privateKeyAlgorithm.parameters))
  }

  def "a #form key#withPassword authenticates the agent"() {
    given:
    Path key = keyFile.call(this)

    expect:
    Handshake.hello(connect(key, password).channel()) instanceof Welcome
    clientSubjects == ['CN=agent-eu-1,O=Acme']
    Files.readString(key).contains(header)

    where:
    form                          | password   | header                          | keyFile
    'PKCS#8'                      | null       | 'BEGIN PRIVATE KEY'             | { it.client.written(it.dir, 'plain').privateKey() }
    'SEC 1 (EC)'                  | null       | 'BEGIN EC PRIVATE KEY'          | { it.pem('sec1.key', it.sec1()) }
    'encrypted PKCS#8'            | 'key-pass' | 'BEGIN ENCRYPTED PRIVATE KEY'   | { it.pem('pkcs8-enc.key', new JcaPKCS8Generator(it.client.keys().private,
        new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC).setProvider(BC).setPassword('key-pass'.toCharArray()).build())) }
    'legacy encrypted PEM'        | 'key-pass' | 'Proc-Type: 4,ENCRYPTED'        | { it.pem('legacy-enc.key', new JcaMiscPEMGenerator(it.sec1(),
        new JcePEMEncryptorBuilder('AES-128-CBC').setProvider(BC).build('key-pass'.toCharArray()))) }
    withPassword = password ? ' with clientKeyFilePassword' : ''
  }

  def "an encrypted key #problem is refused at start, naming clouddriver.tls.clientKeyFilePassword"() {
    given:
    def key = pem('enc.key', new JcaPKCS8Generator(client.keys().private,
        new JceOpenSSLPKCS8EncryptorBuilder(JcaPKCS8Generator.AES_256_CBC).setProvider(BC).setPassword('key-pass'.toCharArray()).build()))

    when:
    connect(key, password)

    then:
    def e = thrown(ChannelSetupException)
    e.key() == 'clouddriver.tls.clientKeyFilePassword'
    e.message.startsWith("clouddriver.tls.clientKeyFilePassword: $message".toString().replace('KEY', key.toString()))
    !e.message.contains('wrong-pass')

    where:
    problem                  | password     || message
    'without a password'     | null         || 'is required: KEY is encrypted'
    'with a wrong password'  | 'wrong-pass' || 'cannot decrypt KEY with it'
  }
}
