package io.spinagent.sandbox

import groovy.json.JsonOutput
import groovy.json.JsonSlurper
import io.spinagent.testkit.db.EmbeddedDatabase

import javax.sql.DataSource

/**
 * Clouddriver's account storage seen from outside Clouddriver, as an operator's SQL client would:
 * the {@code accounts} table, whose bodies are JSON definitions with their {@code type}. Specs read
 * what the plugin stored there and put definitions in, as Clouddriver's own storage would have them.
 */
class ClouddriverAccounts {

  final DataSource dataSource
  final boolean postgres

  ClouddriverAccounts(EmbeddedDatabase db) {
    this.dataSource = db.dataSource()
    this.postgres = db.dialect() == 'POSTGRES'
  }

  /** The definition named {@code name}, as a map; null when there is none. */
  Map getByName(String name) {
    query('SELECT body FROM accounts WHERE id = ?', [name])[0]
  }

  List<Map> listByType(String type) {
    query('SELECT body FROM accounts WHERE type = ? ORDER BY id', [type])
  }

  /** Stores a Kubernetes account definition, as Clouddriver's account storage would. */
  void create(Map definition) {
    long now = System.currentTimeMillis()
    String body = JsonOutput.toJson([type: 'kubernetes'] + definition)
    dataSource.connection.withCloseable { connection ->
      connection.prepareStatement("INSERT INTO accounts (id, type, body, created_at, last_modified_at, last_modified_by)" +
          " VALUES (?, 'kubernetes', ${postgres ? 'CAST(? AS jsonb)' : '?'}, ?, ?, 'spec')").withCloseable {
        it.setString(1, definition.name as String)
        it.setString(2, body)
        it.setLong(3, now)
        it.setLong(4, now)
        it.executeUpdate()
      }
    }
  }

  /** Stores or replaces a Kubernetes account definition. */
  void save(Map definition) {
    delete(definition.name as String)
    create(definition)
  }

  void delete(String name) {
    dataSource.connection.withCloseable { connection ->
      connection.prepareStatement('DELETE FROM accounts WHERE id = ?').withCloseable {
        it.setString(1, name)
        it.executeUpdate()
      }
    }
  }

  private List<Map> query(String sql, List<Object> parameters) {
    dataSource.connection.withCloseable { connection ->
      connection.prepareStatement(sql).withCloseable { statement ->
        parameters.eachWithIndex { value, i -> statement.setObject(i + 1, value) }
        statement.executeQuery().withCloseable { rows ->
          List<Map> found = []
          while (rows.next()) {
            found << (new JsonSlurper().parseText(rows.getString(1)) as Map)
          }
          found
        }
      }
    }
  }
}
