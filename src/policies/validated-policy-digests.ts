/**
 * SHA-256 digests (hex) of the bundled policy documents the build validated: the exact bytes of each
 * policy.json whose parse by the policy schema returns the document unchanged (load-policy.ts,
 * validatedPolicyDigest). A load of a file with one of these digests takes its JSON as parsed.
 *
 * The list is empty in the sources: the build (tsdown.config.ts, scripts/validated-policies.ts) writes
 * the digests into its own copy of this module, computed by the same schema code it bundles. A checkout
 * run from its sources, or a build without them, parses every policy (slower, the same result).
 */
export const VALIDATED_POLICY_DIGESTS: readonly string[] = [
  // warden:validated-policy-digests
];
