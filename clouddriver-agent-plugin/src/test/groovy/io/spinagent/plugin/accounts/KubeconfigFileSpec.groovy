package io.spinagent.plugin.accounts

import java.nio.file.Files
import java.nio.file.Path
import spock.lang.Specification
import spock.lang.Tag
import spock.lang.TempDir

/** A kubeconfigFile on Clouddriver's machine is read only when it is a regular file of sane size. */
@Tag('one-class')
class KubeconfigFileSpec extends Specification {

  @TempDir Path dir

  def "a kubeconfig file is read whole, up to the limit"() {
    given:
    def small = Files.writeString(dir.resolve('kubeconfig'), 'apiVersion: v1\nkind: Config\n')
    def largest = dir.resolve('largest')
    Files.write(largest, ('#' * KubeconfigFile.MAX_BYTES).bytes)

    expect:
    KubeconfigFile.read(small.toString()) == 'apiVersion: v1\nkind: Config\n'
    KubeconfigFile.read(largest.toString()).length() == KubeconfigFile.MAX_BYTES
  }

  def "a path that is no kubeconfig is refused, saying why, without reading it through"() {
    given:
    Files.write(dir.resolve('huge'), ('#' * (KubeconfigFile.MAX_BYTES + 1)).bytes)
    def path = file.replace('$DIR', dir.toString())

    when:
    KubeconfigFile.read(path)

    then:
    def e = thrown(IOException)
    e.message.startsWith(problem)

    where:
    file            || problem
    '/dev/zero'     || 'not a regular file'
    '$DIR'          || 'not a regular file'
    '$DIR/missing'  || 'no such file'
    '$DIR/huge'     || 'larger than 1 MiB'
    'nul\u0000byte' || 'not a valid path'
  }
}
