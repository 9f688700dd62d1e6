/**
 * Implementation details of Backoff; not an API, may change in any release.
 */
@NullMarked
package dev.backoff.internal;

import org.jspecify.annotations.NullMarked;
