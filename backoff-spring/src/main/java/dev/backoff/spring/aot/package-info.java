/**
 * Spring AOT and GraalVM native images: runtime hints for what Backoff loads or invokes
 * reflectively, contributed at build time.
 */
@NullMarked
package dev.backoff.spring.aot;

import org.jspecify.annotations.NullMarked;
