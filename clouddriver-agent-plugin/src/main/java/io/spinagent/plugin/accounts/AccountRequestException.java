package io.spinagent.plugin.accounts;

/** A request about accounts that cannot be done, with the reason an operator reads. */
public final class AccountRequestException extends RuntimeException {

  /** What went wrong, which the REST API turns into its status code. */
  public enum Problem {
    /** The request itself is wrong: a field is missing or invalid (400). */
    INVALID,
    /** No such account or agent (404). */
    NOT_FOUND,
    /**
     * It clashes with what exists: a name taken, an account an agent's configuration owns (409).
     */
    CONFLICT,
    /**
     * Another Clouddriver replica holds the stream of the account's agents, so only it can reach
     * them (409).
     */
    SERVED_ELSEWHERE,
    /** The plugin lacks what the request needs, e.g. Clouddriver's SQL database (503). */
    UNAVAILABLE,
    /** The body is larger than {@code spinagent.accounts.max-request-body} (413). */
    TOO_LARGE,
    /** A limit on how many accounts an agent or zone may serve is reached (429). */
    TOO_MANY
  }

  private final Problem problem;

  public AccountRequestException(Problem problem, String message) {
    super(message);
    this.problem = problem;
  }

  public Problem problem() {
    return problem;
  }

  /**
   * SpinAgent's database failed the request (a restart or failover): the caller may send it again.
   *
   * @param subject what the message is about, e.g. {@code "account 'x': "}; empty for none
   */
  public static AccountRequestException databaseUnreachable(String subject, Throwable error) {
    return new AccountRequestException(
        Problem.UNAVAILABLE,
        subject
            + "the SpinAgent database cannot be reached ("
            + RootCause.messageOf(error)
            + "); try again");
  }

  static AccountRequestException invalid(String message) {
    return new AccountRequestException(Problem.INVALID, message);
  }

  static AccountRequestException notFound(String message) {
    return new AccountRequestException(Problem.NOT_FOUND, message);
  }

  static AccountRequestException conflict(String message) {
    return new AccountRequestException(Problem.CONFLICT, message);
  }
}
