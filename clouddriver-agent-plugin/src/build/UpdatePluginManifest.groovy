// Keeps the repository's plugin-manifest.json entry for this version in step with the bundle zip
// just built, so the sha512sum that Clouddriver verifies on download can never silently drift.
// Entries of other versions are left exactly as they are.
import groovy.json.JsonOutput
import groovy.json.JsonSlurper
import java.security.MessageDigest

def bundle = new File(project.properties['plugin.bundle'])
def manifestFile = new File(project.basedir.parentFile, 'plugin-manifest.json')
def pluginId = project.properties['plugin.id']
def version = project.version

def sha512 = MessageDigest.getInstance('SHA-512').digest(bundle.bytes).encodeHex().toString()

def manifest = manifestFile.exists() ? new JsonSlurper().parse(manifestFile) : []
def plugin = manifest.find { it.id == pluginId }
if (plugin == null) {
    plugin = [
        id         : pluginId,
        description: project.description,
        provider   : 'https://github.com/spinagent/spinagent',
        releases   : []
    ]
    manifest << plugin
}
def release = plugin.releases.find { it.version == version }
if (release == null) {
    plugin.releases.each { it.preferred = false }
    release = [
        version  : version,
        date     : java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString(),
        requires : project.properties['plugin.requires'],
        sha512sum: sha512,
        url      : bundle.name,
        preferred: true
    ]
    plugin.releases << release
} else if (release.sha512sum == sha512 && release.requires == project.properties['plugin.requires']) {
    log.info("plugin-manifest.json is up to date for ${pluginId} ${version}")
    return
}
release.sha512sum = sha512
release.requires = project.properties['plugin.requires']
manifestFile.text = JsonOutput.prettyPrint(JsonOutput.toJson(manifest)) + '\n'
log.warn("plugin-manifest.json: updated the ${pluginId} ${version} release to sha512sum ${sha512.take(16)}…; commit it with the change that caused it")
