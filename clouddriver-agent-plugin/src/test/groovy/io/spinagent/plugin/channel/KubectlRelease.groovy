package io.spinagent.plugin.channel

import com.fasterxml.jackson.databind.ObjectMapper

import java.nio.file.Files
import java.nio.file.Path
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.TimeUnit

/**
 * A kubectl release the build provisioned for this module's specs, named by its minor version, so
 * that a data-driven feature runs once per release and its report says which. The build
 * (.mvn/scripts/ProvisionKubectl.groovy) lists them in the system property spinagent.kubectl.dirs
 * as {@code <minor>=<directory>,…}: the plugin's are the kubectl minor versions Clouddriver 2026.3
 * and later ship.
 */
final class KubectlRelease {

  /** {@code <minor>=<binary>} of the binaries already found to be their release: each is run once. */
  private static final Set<String> CHECKED = ConcurrentHashMap.newKeySet()

  /** The minor version, such as {@code 1.30}. */
  final String minor
  private final Path binary

  private KubectlRelease(String minor, Path binary) {
    this.minor = minor
    this.binary = binary
  }

  /** Every release the build provisioned for this module, in the build's order. */
  static List<KubectlRelease> provisioned() {
    def dirs = System.getProperty('spinagent.kubectl.dirs')
    if (!dirs || dirs.startsWith('${')) {
      throw new IllegalStateException('System property spinagent.kubectl.dirs is not set: run the specs with Maven, ' +
        'which provisions the kubectl releases (.mvn/scripts/ProvisionKubectl.groovy), or set it to ' +
        '<minor>=<directory holding that kubectl>,…')
    }
    dirs.split(',').collect { String entry ->
      def (String minor, String dir) = entry.split('=', 2)
      new KubectlRelease(minor, Path.of(dir).resolve('kubectl'))
    }
  }

  /** The binary, once it is known to run and to be this release: a feature named for 1.30 ran 1.30. */
  String path() {
    if (!CHECKED.contains(toEntry())) {
      assert Files.isExecutable(binary): "kubectl ${minor} is not at ${binary}: the build could not provision it " +
        "(its log says why, see .mvn/scripts/ProvisionKubectl.groovy); install kubectl ${minor} there"
      def process = new ProcessBuilder(binary.toString(), 'version', '--client', '-o', 'json').start()
      def out = new StringBuffer()
      def err = new StringBuffer()
      def readers = [process.consumeProcessOutputStream(out), process.consumeProcessErrorStream(err)]
      assert process.waitFor(20, TimeUnit.SECONDS): "${binary} version did not finish"
      readers*.join()
      assert process.exitValue() == 0: "${binary} version failed: ${err}"
      def version = new ObjectMapper().readValue(out.toString(), Map).clientVersion
      assert "${version.major}.${version.minor}" == minor: "${binary} is ${version.gitVersion}, not kubectl ${minor}"
      CHECKED.add(toEntry())
    }
    binary.toString()
  }

  private String toEntry() {
    "${minor}=${binary}"
  }

  @Override
  String toString() {
    minor
  }
}
