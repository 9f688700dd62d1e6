package dev.backoff;

/**
 * What a non-blocking call hands its scheduler to start its next attempt once a retry's wait is
 * over. A scheduler for tests may run it at once, skipping the wait, as the instant sleeper skips
 * a blocking call's; it must run every other task (an attempt timeout, a hedge timer) at its delay.
 */
public interface RetryTask extends Runnable {

}
