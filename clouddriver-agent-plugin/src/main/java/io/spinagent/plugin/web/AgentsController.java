package io.spinagent.plugin.web;

import io.spinagent.plugin.accounts.AccountRequestException;
import io.spinagent.plugin.grpc.session.AgentSession;
import io.spinagent.plugin.grpc.session.ConnectedAgent;
import io.spinagent.plugin.grpc.session.SessionRegistry;
import java.util.Comparator;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code /spinagent/agents}: the agents connected to this Clouddriver replica. */
@RestController
@RequestMapping(path = "/spinagent/agents", produces = MediaType.APPLICATION_JSON_VALUE)
public class AgentsController extends ApiErrors {

  private final SessionRegistry sessions;

  public AgentsController(SessionRegistry sessions) {
    this.sessions = sessions;
  }

  @GetMapping({"", "/"})
  public AgentList list() {
    return new AgentList(
        sessions.all().stream()
            .map(AgentSession::connectedAgent)
            .sorted(Comparator.comparing(ConnectedAgent::id))
            .toList());
  }

  @GetMapping({"/{id}", "/{id}/"})
  public ConnectedAgent get(@PathVariable String id) {
    return sessions
        .find(id)
        .map(AgentSession::connectedAgent)
        .orElseThrow(
            () ->
                new AccountRequestException(
                    AccountRequestException.Problem.NOT_FOUND,
                    "no agent '" + id + "' is connected to this Clouddriver replica"));
  }

  public record AgentList(List<ConnectedAgent> agents) {}
}
