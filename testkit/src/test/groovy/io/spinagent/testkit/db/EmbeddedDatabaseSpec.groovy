package io.spinagent.testkit.db

import java.nio.file.Files
import java.util.function.Supplier
import spock.lang.Specification

/**
 * The embedded databases keep their data across a restart and leave nothing behind when closed:
 * every launch unpacks MariaDB's server (about 330 MB), so a leak fills a disk within days of
 * test runs.
 */
class EmbeddedDatabaseSpec extends Specification {

  def "#name keeps its data across a restart and deletes its directory when closed"() {
    given:
    EmbeddedDatabase db = launcher.get()
    def directory = db.directory()

    when:
    db.dataSource().connection.withCloseable { it.createStatement().execute('create table kept (id int)') }
    db.stop()
    db.start()

    then:
    db.dataSource().connection.withCloseable { it.createStatement().executeQuery('select count(*) from kept').next() }
    Files.isDirectory(directory)

    when:
    db.close()

    then:
    !Files.exists(directory)

    when: "closed again, as @AutoCleanup does after a spec closed it itself"
    db.close()

    then: "nothing is left, and nothing fails"
    !Files.exists(directory)

    where:
    name         | launcher
    'MariaDB'    | { EmbeddedMariaDb.launch() } as Supplier<EmbeddedDatabase>
    'PostgreSQL' | { EmbeddedPostgreSql.launch() } as Supplier<EmbeddedDatabase>
  }
}
