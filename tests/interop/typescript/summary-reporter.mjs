// A node:test reporter that writes one last line, "N passed, M failed", as the other Ferrite
// client checks (tests/inspector/run.sh) do. Suites are not counted, only the tests in them;
// skipped and todo tests count as neither.
export default async function* summary(source) {
    let passed = 0;
    let failed = 0;
    for await (const { type, data } of source) {
        if (type !== 'test:pass' && type !== 'test:fail') continue;
        if (data.details?.type === 'suite' || data.skip !== undefined || data.todo !== undefined) continue;
        if (type === 'test:pass') passed++;
        else failed++;
    }
    yield `${passed} passed, ${failed} failed\n`;
}
