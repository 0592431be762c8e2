package io.spinagent.plugin.cache.sql;

import java.security.SecureRandom;

/**
 * ULIDs for the {@code uuid} column of {@code _rel} rows: 26 characters of Crockford base32, a
 * 48-bit millisecond timestamp followed by 80 random bits (the format cats-sql writes there).
 */
final class Ulid {

  private static final char[] ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ".toCharArray();
  private static final SecureRandom RANDOM = new SecureRandom();

  private Ulid() {}

  static String next(long epochMillis) {
    char[] out = new char[26];
    long time = epochMillis & 0xFFFFFFFFFFFFL;
    for (int i = 9; i >= 0; i--) {
      out[i] = ALPHABET[(int) (time & 31)];
      time >>>= 5;
    }
    byte[] random = new byte[10];
    RANDOM.nextBytes(random);
    // 80 bits = 16 characters of 5 bits
    long hi = 0;
    for (int i = 0; i < 5; i++) {
      hi = (hi << 8) | (random[i] & 0xFF);
    }
    long lo = 0;
    for (int i = 5; i < 10; i++) {
      lo = (lo << 8) | (random[i] & 0xFF);
    }
    for (int i = 17; i >= 10; i--) {
      out[i] = ALPHABET[(int) (hi & 31)];
      hi >>>= 5;
    }
    for (int i = 25; i >= 18; i--) {
      out[i] = ALPHABET[(int) (lo & 31)];
      lo >>>= 5;
    }
    return new String(out);
  }
}
