package io.spinagent.deploy

import com.marcnuri.helm.Helm

import java.nio.file.Files
import java.nio.file.Path

/** Where deploy/ is, and its objects as kubectl kustomize and Helm render them. */
final class Renderings {

  static final List<String> OVERLAYS = ['agent-mode', 'infrastructure-mode', 'single-namespace']
  static final List<String> HELM_EXAMPLES = ['agent-mode', 'infrastructure-mode', 'single-namespace']
  static final String KUBERNETES_VERSION = 'v1.32.4'

  private Renderings() {}

  static Path deployDir() {
    Path dir = Path.of(System.getProperty('deploy.dir', '.')).toAbsolutePath().normalize()
    assert Files.isDirectory(dir.resolve('kustomize')): "deploy.dir $dir does not hold deploy/kustomize"
    dir
  }

  static Path overlay(String name) {
    deployDir().resolve('kustomize/overlays').resolve(name)
  }

  static Path chart() {
    deployDir().resolve('helm/spinagent-agent')
  }

  static Path helmExample(String name) {
    deployDir().resolve('helm/examples').resolve(name + '.yaml')
  }

  static Manifests kustomize(Kubectl kubectl, String overlayName) {
    new Manifests("kustomize $overlayName", kubectl.kustomize(overlay(overlayName)))
  }

  /** {@code helm template <release> deploy/helm/spinagent-agent -n <namespace> [-f <values>] [--set ...]}. */
  static Manifests helm(String namespace, Path valuesFile = null, Map<String, Object> set = [:]) {
    // Offline, Helm assumes Kubernetes 1.20, which the chart's kubeVersion refuses; 1.32 is the
    // version this project targets.
    def template = new Helm(chart()).template().withName('spinagent').withNamespace(namespace)
        .withKubeVersion(KUBERNETES_VERSION)
    if (valuesFile != null) {
      template.withValuesFile(valuesFile)
    }
    set.each { key, value -> template.set(key, value) }
    String label = 'helm ' + (valuesFile == null ? 'default values' : valuesFile.fileName) + (set ? " $set" : '')
    new Manifests(label, template.call())
  }

  /** The namespace each example is installed into, as its header comment says. */
  static String helmExampleNamespace(String example) {
    example == 'single-namespace' ? 'team-a' : 'spinagent'
  }

  /** Every rendering deploy/ offers, with the namespace the agent runs in. */
  static List<Map> all(Kubectl kubectl) {
    def renderings = OVERLAYS.collect { [manifests: kustomize(kubectl, it), namespace: it == 'single-namespace' ? 'team-a' : 'spinagent'] }
    renderings << [manifests: helm('spinagent'), namespace: 'spinagent']
    renderings.addAll(HELM_EXAMPLES.collect {
      [manifests: helm(helmExampleNamespace(it), helmExample(it)), namespace: helmExampleNamespace(it)]
    })
    renderings
  }
}
