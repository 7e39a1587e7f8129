/**
 * What the modules' tests share: {@link io.meldb.testkit.Await} (conditions instead of sleeps). Starting a server
 * JVM is {@code io.meldb.process.JavaCommand} and {@code io.meldb.process.ChildProcess} of the process module, which
 * test-kit brings along. Test scope only.
 */
package io.meldb.testkit;
