package io.spinagent.agent.config.binding

import static io.spinagent.agent.config.binding.ConfigFiles.load

import java.nio.file.Path
import spock.lang.Specification
import spock.lang.TempDir

/** Each rule of the configuration, broken once: exactly one problem, under the right key path. */
class ConfigValidationSpec extends Specification {

  @TempDir
  Path dir

  def "#keyPath: #message"() {
    when:
    def result = load(dir, yaml)

    then:
    result instanceof ConfigLoadResult.Invalid
    def problems = (result as ConfigLoadResult.Invalid).problems()
    problems.size() == 1
    problems[0].keyPath() == keyPath
    problems[0].message() == message.replace('SPINAGENT_YAML', dir.resolve('spinagent.yaml').toString())
    problems[0].origin().file() == dir.resolve('spinagent.yaml')

    where:
    yaml                                                                        || keyPath                                | message
    // clouddriver
    'clouddriver: {grpc: "http://cd:9091"}'                                     || 'clouddriver.grpc'                     | "expected host:port, e.g. spin-clouddriver-grpc:9091 without a scheme, got 'http://cd:9091'"
    'clouddriver: {grpc: clouddriver}'                                          || 'clouddriver.grpc'                     | "expected host:port, e.g. spin-clouddriver-grpc:9091, got 'clouddriver'"
    'clouddriver: {grpc: "cd:70000"}'                                           || 'clouddriver.grpc'                     | "the port in 'cd:70000' must be between 1 and 65535"
    'clouddriver: {grpc: "fd00::1:9091"}'                                       || 'clouddriver.grpc'                     | 'an IPv6 address must be written in brackets, e.g. [fd00::1]:9091'
    'clouddriver: [a]'                                                          || 'clouddriver'                          | 'expected a map of keys, got a list'
    'clouddriver: {auth: s3cr3t}'                                               || 'clouddriver.auth'                     | 'expected a map of keys, got a single value'
    'clouddriver: {insecure: maybe}'                                            || 'clouddriver.insecure'                 | "expected true or false, got 'maybe'"
    'clouddriver: {insecure: true, tls: {serverName: x}}'                       || 'clouddriver.tls'                      | 'has no effect because clouddriver.insecure is true (plaintext); remove clouddriver.tls or set clouddriver.insecure to false'
    'clouddriver: {tls: {clientCertFile: /c.crt}}'                              || 'clouddriver.tls.clientKeyFile'        | 'is required when clouddriver.tls.clientCertFile is set: mutual TLS needs both the certificate and its private key'
    'clouddriver: {tls: {clientKeyFile: /c.key}}'                               || 'clouddriver.tls.clientCertFile'       | 'is required when clouddriver.tls.clientKeyFile is set: mutual TLS needs both the certificate and its private key'
    'clouddriver: {tls: {insecureSkipVerify: true, cacertFile: /ca.pem}}'       || 'clouddriver.tls.insecureSkipVerify'   | 'conflicts with clouddriver.tls.cacertFile: a CA bundle is pointless when certificates are not verified; remove one of them'
    'clouddriver: {auth: {token: ""}}'                                          || 'clouddriver.auth.token'               | 'must not be empty; remove the key to use the default'
    'clouddriver: {keepAliveHeartbeatSeconds: -1}'                              || 'clouddriver.keepAliveHeartbeatSeconds' | 'must be at least 0, got -1'
    'clouddriver: {keepAliveTimeoutSeconds: ten}'                               || 'clouddriver.keepAliveTimeoutSeconds'  | "expected a whole number, got 'ten'"
    'clouddriver: {keepAliveTimeoutSeconds: 1.5}'                               || 'clouddriver.keepAliveTimeoutSeconds'  | "expected a whole number, got '1.5'"
    'clouddriver: {backoff: {baseDelay: 1}}'                                    || 'clouddriver.backoff.baseDelay'        | "'1' is a bare number, which is read as nanoseconds, as Armory Scale Agent does (1ns); write a duration with its unit instead, e.g. 1s or 1ms"
    'clouddriver: {backoff: {baseDelay: 1.5}}'                                  || 'clouddriver.backoff.baseDelay'        | "'1.5' has no unit; write e.g. 1.5s or 1.5ms"
    'clouddriver: {backoff: {baseDelay: 0s}}'                                   || 'clouddriver.backoff.baseDelay'        | 'must be longer than 0'
    'clouddriver: {backoff: {maxDelay: 2 minutes}}'                             || 'clouddriver.backoff.maxDelay'         | "expected a duration such as 500ms, 1s, 2m or 1h30m, got '2 minutes'"
    'clouddriver: {backoff: {multiplier: 0.5}}'                                 || 'clouddriver.backoff.multiplier'       | 'must be between 1 and 10, got 0.5'
    'clouddriver: {backoff: {jitter: 1.5}}'                                     || 'clouddriver.backoff.jitter'           | 'must be between 0 and 1, got 1.5'
    'clouddriver: {backoff: {jitter: .nan}}'                                    || 'clouddriver.backoff.jitter'           | "expected a number, got '.nan'"
    'clouddriver: {backoff: {baseDelay: 1s, maxDelay: 500ms}}'                  || 'clouddriver.backoff.maxDelay'         | 'maxDelay (500ms) must not be shorter than baseDelay (1s)'
    'clouddriver: {backoff: {baseDelay: 5m}}'                                   || 'clouddriver.backoff.baseDelay'        | 'maxDelay (2m) must not be shorter than baseDelay (5m)'
    'clouddriver: {outbox: {maxBytes: 64MB}}'                                   || 'clouddriver.outbox.maxBytes'          | "expected a size such as 64Mi or 100M (whole number, optional suffix Ki, Mi, Gi, Ti or k, M, G, T), got '64MB'"
    'clouddriver: {outbox: {maxBytes: 1Ki}}'                                    || 'clouddriver.outbox.maxBytes'          | "must be at least 1Mi, got '1Ki'"
    // agent
    'agent: {id: -agent-}'                                                      || 'agent.id'                             | "'-agent-' is not a valid id: use letters, digits, '.', '_' and '-', starting and ending with a letter or digit, at most 253 characters"
    'agent: {zoneId: "eu west"}'                                                || 'agent.zoneId'                         | "'eu west' is not a valid id: use letters, digits, '.', '_' and '-', starting and ending with a letter or digit, at most 253 characters"
    // accounts
    'kubernetes: {accounts: {name: a}}'                                         || 'kubernetes.accounts'                  | 'expected a list of accounts, got a map'
    'kubernetes: {accounts: [prod]}'                                            || 'kubernetes.accounts[0]'               | "expected account settings (a map of keys), got 'prod'"
    'kubernetes: {accounts: [{serviceAccount: true}]}'                          || 'kubernetes.accounts[0].name'          | 'is required'
    'kubernetes: {accounts: [{name: Prod, serviceAccount: true}]}'              || 'kubernetes.accounts[0].name'          | "'Prod' is not a valid account name: use lower-case letters, digits, '-' and '_', starting and ending with a letter or digit ([a-z0-9]+([-a-z0-9_]*[a-z0-9])?)"
    'kubernetes: {accounts: [{name: prod-, serviceAccount: true}]}'             || 'kubernetes.accounts[0].name'          | "'prod-' is not a valid account name: use lower-case letters, digits, '-' and '_', starting and ending with a letter or digit ([a-z0-9]+([-a-z0-9_]*[a-z0-9])?)"
    'kubernetes: {accounts: [{name: prod}]}'                                    || 'kubernetes.accounts[0].kubeconfigFile' | 'is required unless serviceAccount is true or kubeconfigContents is set: an account needs exactly one credential source'
    'kubernetes: {accounts: [{name: prod, serviceAccount: false}]}'             || 'kubernetes.accounts[0].kubeconfigFile' | 'is required unless serviceAccount is true or kubeconfigContents is set: an account needs exactly one credential source'
    'kubernetes: {accounts: [{name: a, kubeconfigFile: /k, serviceAccount: true}]}' || 'kubernetes.accounts[0].serviceAccount' | 'conflicts with kubernetes.accounts[0].kubeconfigFile: an account has exactly one credential source; set kubeconfigFile, kubeconfigContents or serviceAccount: true'
    'kubernetes: {accounts: [{name: a, kubeconfigContents: x, serviceAccount: true}]}' || 'kubernetes.accounts[0].serviceAccount' | 'conflicts with kubernetes.accounts[0].kubeconfigContents: an account has exactly one credential source; set kubeconfigFile, kubeconfigContents or serviceAccount: true'
    'kubernetes: {accounts: [{name: a, kubeconfigFile: /k, kubeConfigFile: /k}]}' || 'kubernetes.accounts[0].kubeConfigFile' | 'is Armory Scale Agent\'s spelling of kubeconfigFile, which is set too (at SPINAGENT_YAML:1); remove one of them'
    'kubernetes: {accounts: [{name: a, serviceAccount: true, context: c}]}'     || 'kubernetes.accounts[0].context'       | 'applies only to kubeconfigFile; an account using serviceAccount has no contexts'
    'kubernetes: {accounts: [{name: a, serviceAccount: true, namespaces: [x], omitNamespaces: [y]}]}' || 'kubernetes.accounts[0].omitNamespaces' | 'conflicts with kubernetes.accounts[0].namespaces: list either the namespaces to watch or those to omit, not both'
    'kubernetes: {accounts: [{name: a, serviceAccount: true, kinds: [Pod], omitKinds: [Secret]}]}'    || 'kubernetes.accounts[0].omitKinds'      | 'conflicts with kubernetes.accounts[0].kinds: list either the kinds to watch or those to omit, not both'
    'kubernetes: {accounts: [{name: a, serviceAccount: true, namespaces: [Bad_NS]}]}'                 || 'kubernetes.accounts[0].namespaces[0]'  | "'Bad_NS' is not a valid namespace name: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, namespaces: default}]}'                  || 'kubernetes.accounts[0].namespaces'     | "expected a list, e.g. [default], got 'default'"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, omitNamespaces: [ok, ""]}]}'             || 'kubernetes.accounts[0].omitNamespaces[1]' | "expected a non-empty string, got ''"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, kinds: ["apps/v1 Deployment"]}]}'        || 'kubernetes.accounts[0].kinds[0]'       | "'apps/v1 Deployment' is not a valid kind: write Kind or Kind.group, e.g. Deployment or Certificate.cert-manager.io"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, onlySpinnakerManaged: sometimes}]}'      || 'kubernetes.accounts[0].onlySpinnakerManaged' | "expected true or false, got 'sometimes'"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, maxResumableResourceAgeMs: -1}]}'        || 'kubernetes.accounts[0].maxResumableResourceAgeMs' | 'must be at least 0, got -1'
    // permissions: a malformed list is an error, never an unrestricted account
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: [READ, admin]}]}'            || 'kubernetes.accounts[0].permissions'    | "expected a map of READ and WRITE to lists of roles, e.g. {READ: [dev, ops], WRITE: [ops]}, or Armory Scale Agent's list of them, e.g. [{READ: [dev, ops]}, {WRITE: [ops]}]; got a list of ['READ', 'admin']"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: [{READ: [dev]}, WRITE]}]}'   || 'kubernetes.accounts[0].permissions'    | "expected a map of READ and WRITE to lists of roles, e.g. {READ: [dev, ops], WRITE: [ops]}, or Armory Scale Agent's list of them, e.g. [{READ: [dev, ops]}, {WRITE: [ops]}]; got a list of [a map, 'WRITE']"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: [{READ: dev}]}]}'            || 'kubernetes.accounts[0].permissions[0].READ' | "expected a list, e.g. [dev], got 'dev'"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: [{Read: [dev]}]}]}'          || 'kubernetes.accounts[0].permissions[0].Read' | "unknown key; did you mean 'READ'?"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: [{WRITE: [" ops"]}]}]}'      || 'kubernetes.accounts[0].permissions[0].WRITE[0]' | "role ' ops' has leading or trailing spaces"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: admin}]}'                   || 'kubernetes.accounts[0].permissions'    | "expected a map of READ and WRITE to lists of roles, e.g. {READ: [dev, ops], WRITE: [ops]}, or Armory Scale Agent's list of them, e.g. [{READ: [dev, ops]}, {WRITE: [ops]}]; got 'admin'"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: {READ: admin}}]}'           || 'kubernetes.accounts[0].permissions.READ' | "expected a list, e.g. [admin], got 'admin'"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: {WRITE: [[ops]]}}]}'        || 'kubernetes.accounts[0].permissions.WRITE[0]' | 'expected a non-empty string, got a list'
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: {read: [dev]}}]}'           || 'kubernetes.accounts[0].permissions.read' | "unknown key; did you mean 'READ'?"
    'kubernetes: {accounts: [{name: a, serviceAccount: true, permissions: {EXECUTE: [dev]}}]}'        || 'kubernetes.accounts[0].permissions.EXECUTE' | 'unknown key; known keys here: READ, WRITE'
    // other sections
    'server: {port: 0}'                                                         || 'server.port'                          | 'must be between 1 and 65535, got 0'
    'prometheus: {port: 65536}'                                                 || 'prometheus.port'                      | 'must be between 1 and 65535, got 65536'
    'prometheus: {enabled: true, port: 8082}'                                   || 'prometheus.port'                      | 'must differ from server.port (both are 8082)'
    'logging: {format: xml}'                                                    || 'logging.format'                       | "expected one of text, json, got 'xml'"
    'logging: {level: verbose}'                                                 || 'logging.level'                        | "expected one of trace, debug, info, warn, error (or Armory Scale Agent's warning, fatal, panic), got 'verbose'"
    'tasks: {totalBudget: 10, budgetPerAccount: 20}'                            || 'tasks.budgetPerAccount'               | 'must not exceed tasks.totalBudget (20 > 10)'
    'tasks: {totalBudget: -1}'                                                  || 'tasks.totalBudget'                    | 'must be at least 0, got -1'
    'timeoutSeconds: -1'                                                        || 'timeoutSeconds'                       | 'must be at least 0, got -1'
    'timeoutSeconds: [1]'                                                       || 'timeoutSeconds'                       | 'expected a whole number, got a list'
    // operations
    'operations: {maxConcurrentPerAccount: 0}'                                  || 'operations.maxConcurrentPerAccount'   | 'must be between 1 and 10000, got 0'
    'operations: {maxQueuedPerAccount: -1}'                                     || 'operations.maxQueuedPerAccount'       | 'must be between 0 and 100000, got -1'
    'operations: {allow: []}'                                                   || 'operations.allow'                     | 'is empty, which would refuse every request; remove operations.allow to allow every request, or list the rules to allow'
    'operations: {allow: [{paths: [/api/**]}]}'                                 || 'operations.allow[0].verbs'            | 'is required: list the verbs this rule allows: *, create, delete, deletecollection, get, list, patch, update, watch'
    'operations: {allow: [{verbs: [get], paths: []}]}'                          || 'operations.allow[0].paths'            | 'is empty, so the rule allows nothing: list the API paths this rule allows, e.g. /apis/apps/v1/namespaces/*/deployments/**'
    'operations: {allow: [{verbs: [read], paths: [/api/**]}]}'                  || 'operations.allow[0].verbs[0]'         | "'read' is not a Kubernetes API verb: use one of *, create, delete, deletecollection, get, list, patch, update, watch"
    'operations: {allow: [{verbs: [get], paths: [api/v1]}]}'                    || 'operations.allow[0].paths[0]'         | "'api/v1' is not an API path: it must start with '/', e.g. /api/v1/namespaces/*/pods/*/log"
    'operations: {allow: [{verbs: [get], paths: [/apis/apps**]}]}'              || 'operations.allow[0].paths[0]'         | "'/apis/apps**': '**' must be a whole segment (/apis/**), not part of one ('apps**')"
    'operations: {allow: [{verbs: [get], paths: [/api/**], methods: [GET]}]}'   || 'operations.allow[0].methods'          | 'unknown key; known keys here: verbs, paths'
  }

  def "account names must be unique; the second use names the first"() {
    when:
    def result = load(dir, '''\
      kubernetes:
        accounts:
          - name: prod
            serviceAccount: true
          - name: staging
            serviceAccount: true
          - name: prod
            kubeconfigFile: /k
      ''') as ConfigLoadResult.Invalid

    then:
    result.problems()*.describe() == [
        "${dir.resolve('spinagent.yaml')}:7: kubernetes.accounts[2].name: duplicate account name 'prod', already used by"
            + " kubernetes.accounts[0].name (${dir.resolve('spinagent.yaml')}:3); account names must be unique"]
  }

  def "valid values at the edge of each rule are accepted"() {
    when:
    def result = load(dir, '''\
      clouddriver:
        grpc: "[fd00::1]:1"
        insecure: yes
        backoff: {baseDelay: 1h, maxDelay: 1h, multiplier: 1, jitter: 0}
        outbox: {maxBytes: 1Mi}
      agent: {id: a, zoneId: "1"}
      kubernetes:
        accounts:
          - name: "0"
            serviceAccount: "true"
            namespaces: [a]
            omitNamespaces: []
            kinds: [deployment.apps]
            permissions: {READ: [], WRITE: [ops]}
            maxResumableResourceAgeMs: 0
      server: {port: 65535}
      prometheus: {enabled: false, port: 65535}
      tasks: {totalBudget: 1, budgetPerAccount: 1}
      timeoutSeconds: "1_000"
      ''')

    then:
    result instanceof ConfigLoadResult.Loaded
    def config = (result as ConfigLoadResult.Loaded).config()
    config.clouddriver().grpc().toString() == '[fd00::1]:1'
    config.clouddriver().insecure()
    config.kubernetes().accounts()[0].name() == '0'
    config.kubernetes().accounts()[0].serviceAccount()
    config.timeoutSeconds() == 1000
  }
}
