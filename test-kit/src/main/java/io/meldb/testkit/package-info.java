/**
 * What the modules' multi-process tests share: {@link io.meldb.testkit.JavaCommand} (a server JVM's command line
 * with the flags of {@code bin/jvm-flags}), {@link io.meldb.testkit.ChildProcess} (start, ready line, output,
 * kill, stop) and {@link io.meldb.testkit.Await} (conditions instead of sleeps). Test scope only.
 */
package io.meldb.testkit;
