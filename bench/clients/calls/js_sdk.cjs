// @hashgraph/sdk 2.81.0 (npm): its mirror-node REST calls, pointed at our API.
//
// The SDK derives the REST base from the mirror network's address: for 127.0.0.1 or localhost it is
// always http://HOST:5551/api/v1 whatever port is given (MirrorNode.mirrorRestApiBaseUrl), and contract
// calls go to port 8545 (MirrorNodeContractQuery). So serve our API on 127.0.0.1:5551 (and :8545 for
// /contracts/call) and give the client setMirrorNetwork(["127.0.0.1:5551"]). Its browser address book
// query (AddressBookQueryWeb) reads /api/v1/network/nodes at the mirror address as given.
//
// node js_sdk.cjs TARGETS.json NODE_MODULES
"use strict";

const fs = require("fs");
const path = require("path");

const found = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const modules = process.argv[3];
const sdk = require(path.join(modules, "@hashgraph/sdk"));
const AddressBookQueryWeb = require(path.join(modules, "@hashgraph/sdk/lib/network/AddressBookQueryWeb.cjs")).default;

function report(name, route, ok, detail, method = "GET") {
    process.stdout.write(JSON.stringify({ call: name, method, route, ok, detail }) + "\n");
}

async function call(name, route, run, check, method = "GET") {
    let problem;
    try {
        problem = check(await run());
    } catch (e) {
        problem = `${e && e.name}: ${e && e.message}`;
    }
    report(name, route, problem == null, problem || "", method);
}

function equal(expected) {
    return (value) => (value === expected ? null : `expected ${expected}, got ${value}`);
}

async function main() {
    const mirror = new URL(found.base_url).host;
    const client = sdk.Client.forNetwork({ "127.0.0.1:50211": found.node_accounts[0] });
    client.setMirrorNetwork([mirror]);
    const evm = found.account_evm_address.replace(/^0x/, "");
    const num = found.account.split(".")[2];

    await call("client.mirrorRestApiBaseUrl", "(derived)", async () => client.mirrorRestApiBaseUrl,
        equal(`${found.base_url}/api/v1`));
    if (found.alias_account) {
        const alias = found.alias_evm_address.replace(/^0x/, "");
        await call("AccountId.fromEvmAddress(0, 0, alias).populateAccountNum(client)",
            "/api/v1/accounts/{idOrAliasOrEvmAddress}",
            // toString() prints the EVM address while the id holds one: the number is what was populated.
            async () => {
                const id = await sdk.AccountId.fromEvmAddress(0, 0, alias).populateAccountNum(client);
                return `${id.shard}.${id.realm}.${id.num}`;
            },
            equal(found.alias_account));
    } else {
        report("AccountId.fromEvmAddress(0, 0, alias).populateAccountNum(client)",
            "/api/v1/accounts/{idOrAliasOrEvmAddress}", null,
            "no account with an EVM address alias in this history (a long-zero one the SDK resolves itself)");
    }
    await call("AccountId.fromString(id).populateAccountEvmAddress(client)",
        "/api/v1/accounts/{idOrAliasOrEvmAddress}",
        async () => (await sdk.AccountId.fromString(found.account).populateAccountEvmAddress(client)).evmAddress.toString(),
        equal(evm));
    if (found.contract_evm_address) {
        const contractEvm = found.contract_evm_address.replace(/^0x/, "");
        await call("ContractId.fromEvmAddress(0, 0, evm).populateAccountNum(client)",
            "/api/v1/contracts/{contractIdOrAddress}",
            async () => (await sdk.ContractId.fromEvmAddress(0, 0, contractEvm).populateAccountNum(client)).toString(),
            equal(found.contract));
        await call("MirrorNodeContractCallQuery().setContractId(id).execute(client)", "/api/v1/contracts/call",
            async () => new sdk.MirrorNodeContractCallQuery().setContractId(sdk.ContractId.fromString(found.contract))
                .setFunction("name").execute(client),
            () => null, "POST");
    } else {
        report("ContractId.fromEvmAddress(0, 0, evm).populateAccountNum(client)",
            "/api/v1/contracts/{contractIdOrAddress}", null, "no contract in this history");
    }
    await call("AddressBookQueryWeb().setFileId(0.0.102).execute(client)", "/api/v1/network/nodes",
        async () => new AddressBookQueryWeb().setFileId(sdk.FileId.ADDRESS_BOOK).setLimit(2).execute(client),
        (book) => {
            const got = book.nodeAddresses.map((n) => n.accountId.toString()).sort();
            const expected = [...found.node_accounts].sort();
            return JSON.stringify(got) === JSON.stringify(expected) ? null : `nodes ${got}, expected ${expected}`;
        });
    client.close();
}

main().catch((e) => {
    report("(script)", "(none)", false, `${e && e.stack}`);
    process.exit(0);
});
