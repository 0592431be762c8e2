package io.spinagent.deploy

import org.yaml.snakeyaml.LoaderOptions
import org.yaml.snakeyaml.Yaml
import org.yaml.snakeyaml.constructor.SafeConstructor

/** A rendering (kustomize or helm output) as the list of objects it holds. */
final class Manifests {

  final String name
  final String yaml
  final List<Map> objects

  Manifests(String name, String yaml) {
    this.name = name
    this.yaml = yaml
    this.objects = new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(yaml).findAll { it != null } as List<Map>
  }

  List<Map> ofKind(String kind) {
    objects.findAll { it.kind == kind }
  }

  Map one(String kind) {
    def found = ofKind(kind)
    assert found.size() == 1: "$name: expected one $kind, found ${found.collect { it.metadata?.name }}"
    found[0]
  }

  Set<String> kinds() {
    objects.collect { it.kind as String } as Set
  }

  /** The agent configuration the rendering ships: spinagent.yaml of the ConfigMap mounted as config. */
  String agentConfig() {
    def mounted = one('Deployment').spec.template.spec.volumes.find { it.name == 'config' }
    String configMapName = mounted.projected.sources.find { !it.configMap.optional }.configMap.name
    def configMap = ofKind('ConfigMap').find { it.metadata.name == configMapName }
    assert configMap != null: "$name: the Deployment mounts ConfigMap $configMapName, which is not rendered"
    configMap.data['spinagent.yaml']
  }

  Map agentContainer() {
    one('Deployment').spec.template.spec.containers.find { it.name == 'agent' }
  }

  @Override
  String toString() {
    name
  }
}
