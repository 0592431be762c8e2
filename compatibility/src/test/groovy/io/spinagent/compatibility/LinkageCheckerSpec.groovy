package io.spinagent.compatibility

import java.nio.file.Files
import java.nio.file.Path
import javax.tools.ToolProvider
import spock.lang.Specification
import spock.lang.TempDir

/**
 * The checker finds what the JVM would fail to link: a class compiled against one version of a
 * library, checked against another whose API changed under it, as the jOOQ and Spring APIs change
 * between Spinnaker lines.
 */
class LinkageCheckerSpec extends Specification {

  @TempDir
  Path dir

  static final String LIBRARY_V1 = '''
    package lib;
    public class Query {
      public static String name = "q";
      public Query limit(int rows) { return this; }
      public Query where(String condition) { return this; }
    }
  '''

  /** Version 2: limit(int) became limit(Number), the field went away, a new interface appeared. */
  static final String LIBRARY_V2 = '''
    package lib;
    public class Query implements Step {
      public Query limit(Number rows) { return this; }
      public Query where(String condition) { return this; }
    }
  '''

  static final String STEP_V2 = 'package lib; public interface Step {}'

  static final String CALLER = '''
    package app;
    import lib.Query;
    public class Caller {
      public String run(Query query) {
        Runnable lambda = () -> query.where("x");
        lambda.run();
        return query.limit(5).where("y") + Query.name;
      }
    }
  '''

  def "a method whose signature changed and a field that went away are found; what stayed links"() {
    given:
    def v1 = compile('v1', [LIBRARY_V1])
    def v2 = compile('v2', [LIBRARY_V2, STEP_V2])
    def app = compile('app', [CALLER], v1)

    when:
    def onV1 = LinkageChecker.check([app], [app, v1])
    def onV2 = LinkageChecker.check([app], [app, v2])

    then:
    onV1.isEmpty()
    onV2*.toString() as Set == [
      'app.Caller -> method lib.Query.limit (I)Llib/Query;',
      'app.Caller -> field lib.Query.name Ljava/lang/String;'] as Set
  }

  def "a missing class is found wherever it is named: supertype, instruction, signature"() {
    given:
    def lib = compile('lib', ['package lib; public class Base { public static void use(Base b) {} }'])
    def app = compile('app', ['''
      package app;
      public class Child extends lib.Base {
        public Object make() { lib.Base.use(new lib.Base()); return lib.Base.class; }
      }'''], lib)

    when:
    def problems = LinkageChecker.check([app], [app])

    then:
    problems*.missing() as Set == ['class lib.Base'] as Set
    problems.size() == 1
  }

  Path compile(String name, List<String> sources, Path classPath = null) {
    def src = Files.createDirectories(dir.resolve("$name-src"))
    def out = Files.createDirectories(dir.resolve(name))
    def files = sources.collect { source ->
      def type = (source =~ /public (?:class|interface) (\w+)/)[0][1]
      Files.writeString(src.resolve("${type}.java".toString()), source.stripIndent())
    }
    def javac = ToolProvider.systemJavaCompiler
    def options = ['-d', out.toString(), '-proc:none', '--release', '17', '-implicit:none']
    if (classPath != null) {
      options += ['-cp', classPath.toString()]
    }
    def fileManager = javac.getStandardFileManager(null, null, null)
    def ok = javac.getTask(null, fileManager, null, options, null,
      fileManager.getJavaFileObjectsFromPaths(files)).call()
    assert ok: "fixture $name compiles"
    out
  }
}
