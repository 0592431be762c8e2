package io.spinagent.plugin.store

import java.sql.DriverManager
import java.sql.SQLException
import javax.sql.DataSource

/**
 * What a Clouddriver replica does to SpinAgent's tables when it starts, in a process of its own:
 * {@code SchemaMigrationMain <jdbc url> <user> <password>}.
 */
class SchemaMigrationMain {

  static void main(String[] args) {
    def (url, user, password) = args
    DataSource dataSource = [getConnection: { -> DriverManager.getConnection(url, user, password) }] as DataSource
    SpinAgentSchema.migrate(dataSource)
    println 'SpinAgent tables up to date'
  }
}
