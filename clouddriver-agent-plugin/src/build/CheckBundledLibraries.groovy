// Fails the build when the plugin's lib/ would carry a library that Clouddriver already provides.
//
// Clouddriver loads plugin classes plugin-first, so a second copy of, say, Guava or Jackson in lib/
// would shadow Clouddriver's own and break in ways no unit test shows. What Clouddriver provides is
// the dependency closure of the spinnaker-platform-1.36 pom (the linkage check in compatibility/
// checks the bundle against every line's), collected here on its own: Maven's scope
// mediation can quietly turn a provided library into a runtime one when one of our dependencies
// also needs it, which is exactly the case this check exists for.
import org.eclipse.aether.RepositorySystem
import org.eclipse.aether.artifact.DefaultArtifact
import org.eclipse.aether.collection.CollectRequest
import org.eclipse.aether.graph.Dependency

def platform = project.dependencies.find { it.artifactId == 'spinnaker-platform-1.36' && it.scope == 'provided' }
if (platform == null) {
    fail('the plugin must depend on spinnaker-platform-1.36 with scope provided')
}

def system = session.container.lookup(RepositorySystem)
def request = new CollectRequest()
request.root = new Dependency(new DefaultArtifact(platform.groupId, platform.artifactId, 'pom', platform.version), 'compile')
request.repositories = project.remoteProjectRepositories
def provided = [] as Set
def walk
walk = { node ->
    def artifact = node.artifact
    if (artifact != null) {
        provided << "${artifact.groupId}:${artifact.artifactId}".toString()
    }
    node.children.each { walk(it) }
}
walk(system.collectDependencies(session.repositorySession, request).root)

def bundled = project.artifacts.findAll { it.scope in ['compile', 'runtime'] }
def clashes = bundled.findAll { "${it.groupId}:${it.artifactId}".toString() in provided }
if (clashes) {
    fail("lib/ would contain libraries Clouddriver ${project.properties['clouddriver.version']} already provides; " +
        "declare them with scope provided in ${project.file}:\n" +
        clashes.collect { "  ${it.groupId}:${it.artifactId}:${it.version} (via ${it.dependencyTrail[1..-2].join(' -> ')})" }.join('\n'))
}
log.info("Bundled libraries checked: ${bundled.size()} in lib/, none of them provided by Clouddriver (${provided.size()} artifacts)")

void fail(String message) {
    throw new org.apache.maven.plugin.MojoFailureException(message)
}
