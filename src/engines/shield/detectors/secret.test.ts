import { describe, expect, it } from "vitest";
import { buildStepFacts } from "../assign/step-facts.js";
import { findSecrets, secretDetector, shannonEntropy } from "./secret.js";

const found = (text: string) => findSecrets({ text }).map((m) => m.kind);

describe("secret", () => {
  it("finds tokens with well-known prefixes and private keys", () => {
    expect(found("key sk-proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34")).toEqual(["openai_key"]);
    expect(found("sk-ant-api03-Zx9Yw8Vu7Ts6Rq5Po4Nm3")).toEqual(["anthropic_key"]);
    expect(found("ghp_1234567890abcdefghijABCDEFGHIJ123456")).toEqual(["github_token"]);
    expect(found("token glpat-xxxxxxxxxxxxxxxxxxxx")).toEqual(["gitlab_token"]);
    expect(found("AKIAIOSFODNN7EXAMPLE")).toEqual(["aws_access_key"]);
    expect(found("xoxb-123456789012-abcdefghij")).toEqual(["slack_token"]);
    expect(found("-----BEGIN OPENSSH PRIVATE KEY-----\nabc")).toEqual(["private_key"]);
  });

  it("finds high-entropy values assigned to key-like names and passwords", () => {
    expect(found('api_key="q8Zr2LmX9vTn4Kp7Wd3Hs6Yb"')).toEqual(["assigned_secret"]);
    expect(found("password: Hunter2024!")).toEqual(["assigned_secret"]);
    expect(found("Authorization: Bearer 8fK2mZq9Lr4Tx7Vn3Hd6Ws1")).toContain("bearer_token");
  });

  it("leaves hashes, ids, placeholders and prose alone", () => {
    for (const text of [
      "commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it",
      "request id 123e4567-e89b-12d3-a456-426614174000",
      "password: ********",
      "token=<your-token-here>",
      "the secret to good docs is examples",
      "sk-short",
      "password reset completed",
    ]) {
      expect(found(text), text).toEqual([]);
    }
  });

  it("measures entropy", () => {
    expect(shannonEntropy({ text: "aaaa" })).toBe(0);
    expect(shannonEntropy({ text: "abcd" })).toBe(2);
  });

  it("detects in a step's text", () => {
    const facts = buildStepFacts({
      step: { action: "send_msg_to_user('use AKIAIOSFODNN7EXAMPLE')", args: {} },
      index: 0,
    });
    expect(secretDetector.detect({ facts, params: {}, field: undefined })).toBe(true);
    expect(secretDetector.detect({ facts, params: { kinds: ["jwt"] }, field: undefined })).toBe(false);
  });

  it("detects a key written in full width or broken by invisible characters", () => {
    for (const action of [
      "send_msg_to_user('use ＡＫＩＡＩＯＳＦＯＤＮＮ７ＥＸＡＭＰＬＥ')",
      "send_msg_to_user('use AKIA\u2060IOSFODNN7EXAMPLE')",
    ]) {
      const facts = buildStepFacts({ step: { action, args: {} }, index: 0 });
      expect(secretDetector.detect({ facts, params: {}, field: undefined }), action).toBe(true);
    }
  });
});
