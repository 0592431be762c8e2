package io.spinagent.agent.cluster;

import java.util.concurrent.Semaphore;

/**
 * Bounds how many lists run at once, per account and in total ({@code tasks.budgetPerAccount},
 * {@code tasks.totalBudget}), so that many large kinds starting together do not burst the heap.
 * Permits are taken per account first, then globally, always in that order, so two lists can never
 * wait for each other's permits.
 */
public final class ListBudget {

  private final Semaphore total;
  private final int totalPermits;
  private final int perAccount;

  public ListBudget(int totalBudget, int budgetPerAccount) {
    this.totalPermits = Math.max(1, totalBudget);
    this.total = new Semaphore(totalPermits, true);
    this.perAccount = Math.max(1, budgetPerAccount);
  }

  /** A fresh per-account budget drawing on this total. */
  public Account forAccount() {
    return new Account(new Semaphore(perAccount, true));
  }

  /** Permits held now, across all accounts. */
  public int inUse() {
    return totalPermits - total.availablePermits();
  }

  public int availableTotal() {
    return total.availablePermits();
  }

  /** One account's share. */
  public final class Account {
    private final Semaphore own;

    private Account(Semaphore own) {
      this.own = own;
    }

    /** Blocks until both an account and a global permit are free; pair with {@link #release}. */
    public void acquire() throws InterruptedException {
      own.acquire();
      try {
        total.acquire();
      } catch (InterruptedException e) {
        own.release();
        throw e;
      }
    }

    public void release() {
      total.release();
      own.release();
    }

    public int available() {
      return own.availablePermits();
    }
  }
}
