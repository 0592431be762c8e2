package io.spinagent.plugin.accounts;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.List;

/** Fiat roles that may read and write an account, as in Clouddriver's account definitions. */
public record AccountPermissions(List<String> read, List<String> write) {

  public static final AccountPermissions NONE = new AccountPermissions(List.of(), List.of());

  public AccountPermissions {
    read = read == null ? List.of() : List.copyOf(read);
    write = write == null ? List.of() : List.copyOf(write);
  }

  @JsonIgnore
  public boolean isEmpty() {
    return read.isEmpty() && write.isEmpty();
  }
}
