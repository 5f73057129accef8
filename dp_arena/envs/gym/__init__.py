"""The Gymnasium wing: one learner against fixed opponents, at one table (over the AEC
environment) and at many (the native vector environment, over the batch or table by
table)."""
