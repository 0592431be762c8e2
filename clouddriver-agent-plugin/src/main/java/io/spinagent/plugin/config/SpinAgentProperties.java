package io.spinagent.plugin.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * The plugin's settings: {@code spinagent.*} in Clouddriver's configuration, or the same keys under
 * the plugin's config block (see {@link SpinAgentPluginConfig}). Every key and default is
 * documented in docs/configuration.md; a spec checks the two agree.
 *
 * <p>Past 500 lines because Spring binds one tree: each group of keys is a nested class here, with
 * its defaults and their documentation beside the getters.
 */
@ConfigurationProperties(SpinAgentProperties.PREFIX)
public class SpinAgentProperties {

  public static final String PREFIX = "spinagent";

  @NestedConfigurationProperty private final Grpc grpc = new Grpc();
  @NestedConfigurationProperty private final Accounts accounts = new Accounts();
  @NestedConfigurationProperty private final Sessions sessions = new Sessions();
  @NestedConfigurationProperty private final Cache cache = new Cache();

  public Grpc getGrpc() {
    return grpc;
  }

  public Accounts getAccounts() {
    return accounts;
  }

  public Sessions getSessions() {
    return sessions;
  }

  public Cache getCache() {
    return cache;
  }

  /**
   * What is written to Clouddriver's cache. Kinds are Clouddriver cache types ({@code deployment},
   * {@code replicaSet}, {@code Certificate.cert-manager.io}) or Kubernetes kind names/aliases of
   * the built-in groups ({@code Deployment}, {@code rs}), matched as Clouddriver matches them.
   */
  public static class Cache {
    /** The kinds cached; empty means Clouddriver's default set (unless cacheAll). */
    private List<String> kinds = new ArrayList<>();

    /** Kinds never cached, even when listed in kinds or with cacheAll. */
    private List<String> omitKinds = new ArrayList<>();

    /** Cache every kind the agents stream (minus omitKinds). */
    private boolean cacheAll = false;

    /**
     * Transactions the SQL writer runs at a time, each on a thread of its own (an account's batches
     * are in one at a time). Each takes every batch queued while the previous ran, so one keeps up
     * with a fleet; concurrent ones contend for the same index ranges (on MySQL they deadlock now
     * and then, and are run again).
     */
    private int writerThreads = 1;

    /**
     * Objects whose committed rows (version, relationship rows) the SQL writer keeps in memory, all
     * accounts together, so that the next change to them needs no read; 0 reads them every time.
     */
    private int rememberedObjects = 100_000;

    public List<String> getKinds() {
      return kinds;
    }

    public void setKinds(List<String> kinds) {
      this.kinds = kinds;
    }

    public List<String> getOmitKinds() {
      return omitKinds;
    }

    public void setOmitKinds(List<String> omitKinds) {
      this.omitKinds = omitKinds;
    }

    public boolean isCacheAll() {
      return cacheAll;
    }

    public void setCacheAll(boolean cacheAll) {
      this.cacheAll = cacheAll;
    }

    public int getWriterThreads() {
      return writerThreads;
    }

    public void setWriterThreads(int writerThreads) {
      this.writerThreads = writerThreads;
    }

    public int getRememberedObjects() {
      return rememberedObjects;
    }

    public void setRememberedObjects(int rememberedObjects) {
      this.rememberedObjects = rememberedObjects;
    }
  }

  /** The server agents connect to. */
  public static class Grpc {
    private String address = "0.0.0.0";
    private int port = 9091;
    private DataSize maxInboundMessageSize = DataSize.ofMegabytes(4);
    private Duration keepAliveTime = Duration.ofSeconds(30);
    private Duration keepAliveTimeout = Duration.ofSeconds(10);
    private Duration permitKeepAliveTime = Duration.ofSeconds(5);
    @NestedConfigurationProperty private final Security security = new Security();
    @NestedConfigurationProperty private final Auth auth = new Auth();

    public String getAddress() {
      return address;
    }

    public void setAddress(String address) {
      this.address = address;
    }

    public int getPort() {
      return port;
    }

    public void setPort(int port) {
      this.port = port;
    }

    public DataSize getMaxInboundMessageSize() {
      return maxInboundMessageSize;
    }

    public void setMaxInboundMessageSize(DataSize maxInboundMessageSize) {
      this.maxInboundMessageSize = maxInboundMessageSize;
    }

    public Duration getKeepAliveTime() {
      return keepAliveTime;
    }

    public void setKeepAliveTime(Duration keepAliveTime) {
      this.keepAliveTime = keepAliveTime;
    }

    public Duration getKeepAliveTimeout() {
      return keepAliveTimeout;
    }

    public void setKeepAliveTimeout(Duration keepAliveTimeout) {
      this.keepAliveTimeout = keepAliveTimeout;
    }

    public Duration getPermitKeepAliveTime() {
      return permitKeepAliveTime;
    }

    public void setPermitKeepAliveTime(Duration permitKeepAliveTime) {
      this.permitKeepAliveTime = permitKeepAliveTime;
    }

    public Security getSecurity() {
      return security;
    }

    public Auth getAuth() {
      return auth;
    }
  }

  /** TLS on the agent port. Files are re-read when they change. */
  public static class Security extends TlsFiles {
    private ClientAuth clientAuth = ClientAuth.NONE;
    private Duration reloadInterval = Duration.ofSeconds(30);

    public ClientAuth getClientAuth() {
      return clientAuth;
    }

    public void setClientAuth(ClientAuth clientAuth) {
      this.clientAuth = clientAuth;
    }

    public Duration getReloadInterval() {
      return reloadInterval;
    }

    public void setReloadInterval(Duration reloadInterval) {
      this.reloadInterval = reloadInterval;
    }
  }

  public enum ClientAuth {
    NONE,
    OPTIONAL,
    REQUIRE
  }

  /** Who may connect, on top of TLS. */
  public static class Auth {
    @NestedConfigurationProperty private final X509 x509 = new X509();
    @NestedConfigurationProperty private final Tokens tokens = new Tokens();

    public X509 getX509() {
      return x509;
    }

    public Tokens getTokens() {
      return tokens;
    }
  }

  /** Client certificate subjects allowed to connect (needs client auth). */
  public static class X509 {
    private boolean enabled = false;
    private List<String> filters = new ArrayList<>();

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<String> getFilters() {
      return filters;
    }

    public void setFilters(List<String> filters) {
      this.filters = filters;
    }
  }

  /**
   * Bearer tokens agents must present; required as soon as one is configured. An entry (here or a
   * line of the file) is a token, or a name and a token separated by whitespace: the name is the
   * identity of the agents presenting the token, so a rotated token keeps it.
   */
  public static class Tokens {
    private List<String> values = new ArrayList<>();
    private Path file;

    public List<String> getValues() {
      return values;
    }

    public void setValues(List<String> values) {
      this.values = values;
    }

    public Path getFile() {
      return file;
    }

    public void setFile(Path file) {
      this.file = file;
    }
  }

  /** How accounts outlive their agents. */
  public static class Accounts {
    private Duration gracePeriod = Duration.ofMinutes(5);
    private Duration commandTimeout = Duration.ofSeconds(15);
    private Duration definitionRetryBackoff = Duration.ofSeconds(1);
    private Duration definitionCheckInterval = Duration.ofSeconds(30);
    private boolean clouddriverDefinitions = true;
    private DataSize maxRequestBody = DataSize.ofKilobytes(256);
    private int maxDynamicPerAgent = 500;
    private int maxDynamicPerZone = 2000;
    private int maxAccountsPerRequest = 100;

    /**
     * How many dynamic accounts (created through the API or migrated) one agent may be named to
     * serve; one more is refused with 429.
     */
    public int getMaxDynamicPerAgent() {
      return maxDynamicPerAgent;
    }

    public void setMaxDynamicPerAgent(int maxDynamicPerAgent) {
      this.maxDynamicPerAgent = maxDynamicPerAgent;
    }

    /**
     * How many dynamic accounts one zone may be named to serve (every agent of the zone serves
     * them); one more is refused with 429.
     */
    public int getMaxDynamicPerZone() {
      return maxDynamicPerZone;
    }

    public void setMaxDynamicPerZone(int maxDynamicPerZone) {
      this.maxDynamicPerZone = maxDynamicPerZone;
    }

    /**
     * How many accounts one request of Armory's dynamic accounts API may name (its bodies are
     * arrays); more is refused with 400 before any is touched.
     */
    public int getMaxAccountsPerRequest() {
      return maxAccountsPerRequest;
    }

    public void setMaxAccountsPerRequest(int maxAccountsPerRequest) {
      this.maxAccountsPerRequest = maxAccountsPerRequest;
    }

    @NestedConfigurationProperty private final AutoMigrate autoMigrate = new AutoMigrate();

    /** Clouddriver's accounts put under agents by name, without a request per account. */
    public AutoMigrate getAutoMigrate() {
      return autoMigrate;
    }

    @NestedConfigurationProperty
    private final CredentialsInterceptor credentialsInterceptor = new CredentialsInterceptor();

    /** Kubernetes accounts written through Clouddriver's {@code /credentials} go to agents. */
    public CredentialsInterceptor getCredentialsInterceptor() {
      return credentialsInterceptor;
    }

    @NestedConfigurationProperty private final Binding binding = new Binding();

    /** Which agents may serve an account: the principal that registered it, and who else. */
    public Binding getBinding() {
      return binding;
    }

    /**
     * The largest body {@code /spinagent/accounts} accepts (413 beyond it): an account's definition
     * becomes a command to its agent, which must stay well under the agents' frame limit.
     */
    public DataSize getMaxRequestBody() {
      return maxRequestBody;
    }

    public void setMaxRequestBody(DataSize maxRequestBody) {
      this.maxRequestBody = maxRequestBody;
    }

    /**
     * How long an API request waits for agents to answer a dynamic account's command; when they
     * have not, it answers 202 and the account's state shows the outcome once they do.
     */
    public Duration getCommandTimeout() {
      return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
      this.commandTimeout = commandTimeout;
    }

    /**
     * First wait before retrying a failed write to Clouddriver's account storage (doubles, up to 1
     * min).
     */
    public Duration getDefinitionRetryBackoff() {
      return definitionRetryBackoff;
    }

    public void setDefinitionRetryBackoff(Duration definitionRetryBackoff) {
      this.definitionRetryBackoff = definitionRetryBackoff;
    }

    /**
     * How often the definitions SpinAgent wrote in Clouddriver's account storage are compared with
     * what it wrote; one changed or deleted outside SpinAgent is written again.
     */
    public Duration getDefinitionCheckInterval() {
      return definitionCheckInterval;
    }

    public void setDefinitionCheckInterval(Duration definitionCheckInterval) {
      this.definitionCheckInterval = definitionCheckInterval;
    }

    /** Whether served accounts become Clouddriver account definitions (needs account storage). */
    public boolean isClouddriverDefinitions() {
      return clouddriverDefinitions;
    }

    public void setClouddriverDefinitions(boolean clouddriverDefinitions) {
      this.clouddriverDefinitions = clouddriverDefinitions;
    }

    public Duration getGracePeriod() {
      return gracePeriod;
    }

    public void setGracePeriod(Duration gracePeriod) {
      this.gracePeriod = gracePeriod;
    }
  }

  /**
   * An account is bound to the principal of the agent that first registered it (its client
   * certificate subject or token identity): agents of another principal may neither serve it nor
   * stand by for it, unless allowed here.
   */
  public static class Binding {
    private boolean enabled = true;
    private List<AlsoAllowed> alsoAllowed = new ArrayList<>();

    /** Whether accounts are bound to principals at all; off, any agent may serve any account. */
    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    /** Principals that may serve accounts bound to another principal. */
    public List<AlsoAllowed> getAlsoAllowed() {
      return alsoAllowed;
    }

    public void setAlsoAllowed(List<AlsoAllowed> alsoAllowed) {
      this.alsoAllowed = alsoAllowed;
    }
  }

  /**
   * Clouddriver Kubernetes accounts whose names match one of {@code namePatterns} (accounts in
   * account storage) or {@code configuredNamePatterns} (accounts of Clouddriver's configuration
   * files), regular expressions matching the whole name, are migrated to the agents of {@code
   * zoneId} (or to agent {@code agentId}) by the replica those agents are connected to, {@code
   * batchSize} per scan every {@code scanInterval}. Off while no pattern is given.
   */
  public static class AutoMigrate {
    private List<String> namePatterns = new ArrayList<>();
    private List<String> configuredNamePatterns = new ArrayList<>();
    private String zoneId;
    private String agentId;
    private Duration scanInterval = Duration.ofMinutes(1);
    private int batchSize = 10;

    public List<String> getNamePatterns() {
      return namePatterns;
    }

    public void setNamePatterns(List<String> namePatterns) {
      this.namePatterns = namePatterns;
    }

    public List<String> getConfiguredNamePatterns() {
      return configuredNamePatterns;
    }

    public void setConfiguredNamePatterns(List<String> configuredNamePatterns) {
      this.configuredNamePatterns = configuredNamePatterns;
    }

    public String getZoneId() {
      return zoneId;
    }

    public void setZoneId(String zoneId) {
      this.zoneId = zoneId;
    }

    public String getAgentId() {
      return agentId;
    }

    public void setAgentId(String agentId) {
      this.agentId = agentId;
    }

    public Duration getScanInterval() {
      return scanInterval;
    }

    public void setScanInterval(Duration scanInterval) {
      this.scanInterval = scanInterval;
    }

    public int getBatchSize() {
      return batchSize;
    }

    public void setBatchSize(int batchSize) {
      this.batchSize = batchSize;
    }
  }

  /**
   * Kubernetes accounts created through Clouddriver's Account Management API ({@code POST
   * /credentials}) are migrated to the agents of {@code zoneId} (or to agent {@code agentId}) once
   * Clouddriver has stored them; SpinAgent's accounts are deleted with {@code DELETE
   * /credentials/{name}} and changed at their agents with {@code PUT /credentials}. Off by default.
   */
  public static class CredentialsInterceptor {
    private boolean enabled;
    private String zoneId;
    private String agentId;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getZoneId() {
      return zoneId;
    }

    public void setZoneId(String zoneId) {
      this.zoneId = zoneId;
    }

    public String getAgentId() {
      return agentId;
    }

    public void setAgentId(String agentId) {
      this.agentId = agentId;
    }
  }

  /**
   * Principals matching {@code principal} may serve the accounts matching {@code accounts}, whoever
   * they are bound to. Both are regular expressions that must match entirely.
   */
  public static class AlsoAllowed {
    private String principal;
    private String accounts = ".*";

    public String getPrincipal() {
      return principal;
    }

    public void setPrincipal(String principal) {
      this.principal = principal;
    }

    public String getAccounts() {
      return accounts;
    }

    public void setAccounts(String accounts) {
      this.accounts = accounts;
    }
  }

  /** Per-connection limits that keep one agent from costing the others. */
  public static class Sessions {
    private Duration heartbeatInterval = Duration.ofSeconds(10);
    private int maxPendingBatches = 16;
    private int maxOutboundFrames = 1024;
    private Duration minCommitInterval = Duration.ofMillis(20);

    public Duration getHeartbeatInterval() {
      return heartbeatInterval;
    }

    public void setHeartbeatInterval(Duration heartbeatInterval) {
      this.heartbeatInterval = heartbeatInterval;
    }

    public int getMaxPendingBatches() {
      return maxPendingBatches;
    }

    public void setMaxPendingBatches(int maxPendingBatches) {
      this.maxPendingBatches = maxPendingBatches;
    }

    public int getMaxOutboundFrames() {
      return maxOutboundFrames;
    }

    public void setMaxOutboundFrames(int maxOutboundFrames) {
      this.maxOutboundFrames = maxOutboundFrames;
    }

    /**
     * How often one account may commit at most; what its agent sends meanwhile is committed
     * together.
     */
    public Duration getMinCommitInterval() {
      return minCommitInterval;
    }

    public void setMinCommitInterval(Duration minCommitInterval) {
      if (minCommitInterval.isNegative()) {
        throw new IllegalArgumentException(
            "spinagent.sessions.min-commit-interval must not be negative, not "
                + minCommitInterval);
      }
      this.minCommitInterval = minCommitInterval;
    }
  }
}
