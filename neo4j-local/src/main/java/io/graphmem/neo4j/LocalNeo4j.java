package io.graphmem.neo4j;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.HttpConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.QueryExecutionException;
import org.neo4j.io.ByteUnit;
import org.neo4j.server.configuration.ServerSettings;

/**
 * Neo4j Community, embedded, with its Bolt connector on 127.0.0.1: a real server for the official
 * drivers and Neo4j Browser, without Docker.
 *
 * <p>Usage: {@code LocalNeo4j --data DIR --port PORT --password-file FILE [--parent-pid PID]
 * [--pagecache SIZE_MB] [--http-port PORT [--post-connect-file FILE]]}. The password comes from a
 * file (not argv, which other users can read). With --http-port, Neo4j's own web server runs on
 * 127.0.0.1 too: Neo4j Browser (the neo4j-browser jar on the classpath) at /browser/, discovery at
 * /; --post-connect-file holds the command Browser runs on connect (browser.post_connect_cmd).
 * Prints one line starting "READY " when Bolt accepts connections; stops cleanly on SIGTERM/SIGINT
 * and when the process named by --parent-pid exits.
 */
public final class LocalNeo4j {
  private LocalNeo4j() {}

  public static void main(String[] argv) throws IOException {
    Map<String, String> args = parse(argv);
    Path data = Path.of(require(args, "data")).toAbsolutePath();
    int port = Integer.parseInt(require(args, "port"));
    String password =
        Files.readString(Path.of(require(args, "password-file")), StandardCharsets.UTF_8).strip();
    long pagecacheMb = Long.parseLong(args.getOrDefault("pagecache", "256"));

    DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(data);
    if (args.containsKey("config-file")) {
      // neo4j.conf lines (tuning the caller chooses); the settings below take precedence
      builder.loadPropertiesFromFile(Path.of(args.get("config-file")));
    }
    builder
        .setConfig(GraphDatabaseSettings.auth_enabled, true)
        .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(pagecacheMb))
        .setConfig(BoltConnector.enabled, true)
        .setConfig(BoltConnector.listen_address, new SocketAddress("127.0.0.1", port))
        .setConfig(BoltConnector.advertised_address, new SocketAddress("127.0.0.1", port));
    String http = "";
    if (args.containsKey("http-port")) {
      int httpPort = Integer.parseInt(args.get("http-port"));
      builder
          .setConfig(HttpConnector.enabled, true)
          .setConfig(HttpConnector.listen_address, new SocketAddress("127.0.0.1", httpPort))
          .setConfig(HttpConnector.advertised_address, new SocketAddress("127.0.0.1", httpPort));
      if (args.containsKey("post-connect-file")) {
        String command =
            Files.readString(Path.of(args.get("post-connect-file")), StandardCharsets.UTF_8);
        builder.setConfig(ServerSettings.browser_post_connect_cmd, command.strip());
      }
      http = " browser=http://127.0.0.1:" + httpPort + "/browser/";
    }
    DatabaseManagementService dbms = builder.build();
    Runtime.getRuntime().addShutdownHook(new Thread(dbms::shutdown, "neo4j-shutdown"));
    try {
      setPassword(dbms, password);
    } catch (RuntimeException e) {
      e.printStackTrace();
      System.exit(1); // the shutdown hook closes the store
    }

    if (args.containsKey("parent-pid")) {
      long parent = Long.parseLong(args.get("parent-pid"));
      ProcessHandle.of(parent)
          .ifPresentOrElse(
              handle -> handle.onExit().thenRun(() -> System.exit(0)), () -> System.exit(0));
    }
    System.out.println("READY bolt://127.0.0.1:" + port + " data=" + data + http);
    System.out.flush();
  }

  /**
   * A fresh store's user neo4j has password "neo4j" and must change it; a store from an earlier
   * run keeps the one it has unless the file now says otherwise. An administration command on
   * the system database, with the password as a parameter.
   */
  private static void setPassword(DatabaseManagementService dbms, String password) {
    try {
      dbms.database(GraphDatabaseSettings.SYSTEM_DATABASE_NAME)
          .executeTransactionally(
              "ALTER USER neo4j SET PASSWORD $password CHANGE NOT REQUIRED",
              Map.of("password", password));
    } catch (QueryExecutionException e) {
      if (!e.getMessage().contains("Old password and new password cannot be the same")) {
        throw e;
      }
    }
  }

  private static Map<String, String> parse(String[] argv) {
    Map<String, String> args = new HashMap<>();
    for (int i = 0; i < argv.length; i++) {
      if (!argv[i].startsWith("--") || i + 1 >= argv.length) {
        usage("unexpected argument " + argv[i]);
      }
      args.put(argv[i].substring(2), argv[++i]);
    }
    return args;
  }

  private static String require(Map<String, String> args, String name) {
    String value = args.get(name);
    if (value == null) {
      usage("missing --" + name);
    }
    return value;
  }

  private static void usage(String problem) {
    System.err.println(
        "LocalNeo4j: "
            + problem
            + "\nusage: LocalNeo4j --data DIR --port PORT --password-file FILE"
            + " [--parent-pid PID] [--pagecache MB] [--config-file FILE]"
            + " [--http-port PORT [--post-connect-file FILE]]");
    System.exit(2);
  }
}
